/**
 * Masking of credentials in what the loader stores or logs, by name and by value, with two kinds of
 * value:
 * - the run's **own** secrets (the accounts' configured keys, the warehouse password, the webhook
 *   URLs): masked wherever they could leak, a row's typed columns included;
 * - values **learnt** from the platform (a credential-named field of an answer, a stream's
 *   `secretFields`, a sub-account key the fan-out fetched): remembered only when
 *   {@link isStrongSecret}, and then masked in free text only (a reject's raw row and issues,
 *   `_extra`, error messages, log lines), never in a typed column: a trunk whose `sip_password` was
 *   `answered` once masked the disposition of 656 of 825 CDRs. A weak learnt value is masked where
 *   it sits, by the name of its field.
 * By name: a field of a raw row or of `_extra` whose name looks like a credential's, in any case or
 * separator (`apiKey`, `api-key`, `ACCESS_TOKEN`, `sip_password`), is masked whatever its value.
 */
import { inspect } from "node:util";
import { isRawJsonNumber } from "@telecom-etl/platform/exact-number.js";

/** What a masked value reads as. */
export const MASK = "***";

/**
 * Own secrets shorter than this are not masked by value: replacing a 3-character string everywhere
 * would mangle ordinary data. (Every key the platform issues is far longer.)
 */
export const MIN_SECRET_LENGTH = 8;

/** A value learnt from the platform shorter than this is never masked outside its own field. */
export const MIN_LEARNT_SECRET_LENGTH = 16;

/** Fewest bits of Shannon entropy per character of a strong learnt value. */
export const MIN_LEARNT_SECRET_BITS_PER_CHAR = 3;

/** Words that make a field name a credential's (`api_key` → api, key; `accessToken` → access, token). */
const CREDENTIAL_WORDS = new Set([
  "key",
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "credential",
  "credentials",
  "apikey",
  "accesstoken",
  "authtoken",
  "refreshtoken",
  "secretkey",
  "privatekey",
  "clientsecret",
]);

/**
 * Endings of a name (lower case, separators removed) whose value is a secret worth remembering:
 * narrower than {@link isCredentialName}, since a `sort_key` or `token_count` value is masked in its
 * own row only.
 */
const SECRET_VALUE_ENDINGS = [
  "apikey",
  "accesstoken",
  "authtoken",
  "refreshtoken",
  "secret",
  "secretkey",
  "privatekey",
  "password",
  "passwd",
];

/** The words of a field name: camelCase, PascalCase, snake_case, kebab-case, dotted, in lower case. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
}

/** Bits of {@link nameKind}. */
const CREDENTIAL = 1;
const HOLDS_SECRET = 2;

/**
 * What each field name is, decided once per distinct name: the harvest and the masking ask it for
 * every field of every row. Bounded: a platform inventing names cannot grow it without limit.
 */
const nameKinds = new Map<string, number>();
const NAME_CACHE_LIMIT = 10_000;

function nameKind(name: string): number {
  let kind = nameKinds.get(name);
  if (kind === undefined) {
    const words = nameWords(name);
    const flat = words.join("");
    const holds = SECRET_VALUE_ENDINGS.some((ending) => flat.endsWith(ending));
    const credential =
      holds ||
      words.some(
        (word) => CREDENTIAL_WORDS.has(word) || word.startsWith("secret") || word.startsWith("passw"),
      );
    kind = (credential ? CREDENTIAL : 0) | (holds ? HOLDS_SECRET : 0);
    if (nameKinds.size >= NAME_CACHE_LIMIT) nameKinds.clear();
    nameKinds.set(name, kind);
  }
  return kind;
}

/**
 * True for a field name that looks like a credential's: a word `key`, `token`, `secret`,
 * `password` (and the usual compounds written as one word: `apikey`, `accesstoken`), in any case or
 * separator, and every name {@link holdsSecretValue}. Such a field's value is masked wherever a raw
 * row or `_extra` is stored or logged.
 */
export function isCredentialName(name: string): boolean {
  return (nameKind(name) & CREDENTIAL) !== 0;
}

/** True for a field whose value is learnt as a secret (`api_key`, `accessToken`, `sip_password`). */
export function holdsSecretValue(name: string): boolean {
  return (nameKind(name) & HOLDS_SECRET) !== 0;
}

/** What a token is made of: letters, digits and the punctuation of base64, base64url and prefixed keys. */
const TOKEN_CHARACTERS = /^[A-Za-z0-9._~+/=-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Shannon entropy of the characters of `text`, in bits per character. */
export function bitsPerCharacter(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * True for a learnt value that can only be a credential, safe to mask in free text: at least
 * {@link MIN_LEARNT_SECRET_LENGTH} characters, only a token's characters (no whitespace, `:` or
 * `@`: a country, a SIP URI, a date-time, an e-mail is data), letters and digits both (a word, a
 * phone number, a date is not), not a UUID (how the platform names its calls and messages: a UUID in
 * a credential field is far likelier an id than a key), and at least
 * {@link MIN_LEARNT_SECRET_BITS_PER_CHAR} bits of entropy per character (a random 32-digit hex key
 * has about 3.7).
 */
export function isStrongSecret(value: string): boolean {
  return (
    value.length >= MIN_LEARNT_SECRET_LENGTH &&
    TOKEN_CHARACTERS.test(value) &&
    /[A-Za-z]/.test(value) &&
    /[0-9]/.test(value) &&
    !UUID.test(value) &&
    bitsPerCharacter(value) >= MIN_LEARNT_SECRET_BITS_PER_CHAR
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value) || isRawJsonNumber(value)) {
    return false;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A copy of the fields of `value` that come before `name` (in its own order). */
function fieldsBefore(value: Record<string, unknown>, name: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field in value) {
    if (field === name) break;
    out[field] = value[field];
  }
  return out;
}

/** Values at most that {@link SecretPattern} looks for one by one before it runs its pattern. */
const FEW_VALUES = 8;

/** A set of values and the one pattern that finds any of them, compiled when first needed after a change. */
class SecretPattern {
  readonly values = new Set<string>();
  /** Length of the shortest value: a shorter text cannot hold one, and is not scanned. */
  shortest = Number.POSITIVE_INFINITY;
  #pattern: RegExp | null = null;
  #compiled = true;
  readonly #list: string[] = [];

  /**
   * False when `text` certainly holds no value: with a few values, a substring search each (far
   * cheaper than the pattern, and nearly every text holds none); with many, the pattern decides.
   */
  #mayHold(text: string): boolean {
    if (this.#list.length > FEW_VALUES) return true;
    for (const value of this.#list) if (text.includes(value)) return true;
    return false;
  }

  add(value: string): void {
    if (this.values.has(value)) return;
    this.values.add(value);
    this.#list.push(value);
    this.shortest = Math.min(this.shortest, value.length);
    this.#compiled = false;
  }

  /** `text` with every value replaced by {@link MASK}. */
  replace(text: string): string {
    if (text.length < this.shortest || !this.#mayHold(text)) return text;
    if (!this.#compiled) {
      // Longest first: a value inside another is not masked before the longer one.
      const alternatives = [...this.values].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.#pattern = new RegExp(alternatives.join("|"), "g");
      this.#compiled = true;
    }
    return text.replace(this.#pattern!, MASK);
  }
}

/**
 * The secrets one run knows, and the masking that uses them. One per run (the CLI's process, shared
 * by its logger): seeded with the run's own secrets ({@link add}), fed by the HTTP client with every
 * secret-looking field of every answer and by the sub-account fan-out with the keys it fetches
 * ({@link learn}). Never serialised.
 */
export class KnownSecrets {
  /** Own secrets: what typed columns are cleared of. */
  readonly #own = new SecretPattern();
  /** Own secrets and strong learnt values: what free text is cleared of. */
  readonly #text = new SecretPattern();

  /** Remembers one of the run's own secrets (ignored when shorter than {@link MIN_SECRET_LENGTH}). */
  add(value: string | undefined): void {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
    this.#own.add(value);
    this.#text.add(value);
  }

  /**
   * Remembers a value learnt from the platform as a secret, when {@link isStrongSecret}: masked in
   * free text, never in a typed column. A weak one is not remembered (its field masks it by name).
   */
  learn(value: string | undefined): void {
    if (value === undefined || this.#text.values.has(value) || !isStrongSecret(value)) return;
    this.#text.add(value);
  }

  /** Learns the string value of every field, at any depth of `body`, that {@link holdsSecretValue}. */
  harvest(body: unknown): void {
    if (Array.isArray(body)) {
      for (const item of body) this.harvest(item);
      return;
    }
    if (!isPlainObject(body)) return;
    for (const name in body) {
      const value = body[name];
      if (typeof value === "string") {
        if ((nameKind(name) & HOLDS_SECRET) !== 0) this.learn(value);
      } else if (value !== null && typeof value === "object") {
        this.harvest(value);
      }
    }
  }

  /** How many secrets are masked in free text (own ones and strong learnt ones). */
  get size(): number {
    return this.#text.values.size;
  }

  /** `text` (a message, a log line) with every own secret and strong learnt value replaced by {@link MASK}. */
  maskText(text: string): string {
    return this.#text.replace(text);
  }

  /**
   * A copy of `value` (free text as a JSON-like tree: a raw row, `_extra`, a reject's issues) with
   * every field whose name {@link isCredentialName} masked (null stays null) and every own secret
   * and strong learnt value replaced in every string, keys included. Values that are not plain
   * objects, arrays or strings are kept as they are; what holds nothing to mask is returned
   * unchanged (the same object).
   */
  mask<T>(value: T): T {
    return this.#mask(value, this.#text, true) as T;
  }

  /**
   * A row's typed columns cleared of the run's own secrets only: field names are left alone (a
   * column named `token` is a validation's id) and learnt values never rewrite a column (a trunk's
   * `sip_password` of `answered` must not rewrite every answered call's disposition).
   */
  maskColumns<T>(columns: T): T {
    return this.#own.values.size === 0 ? columns : (this.#mask(columns, this.#own, false) as T);
  }

  #mask(value: unknown, secrets: SecretPattern, byName: boolean): unknown {
    if (typeof value === "string") return secrets.replace(value);
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item) => {
        const masked = this.#mask(item, secrets, byName);
        if (masked !== item) changed = true;
        return masked;
      });
      return changed ? out : value;
    }
    return isPlainObject(value) ? this.#maskFields(value, secrets, byName) : value;
  }

  /**
   * An object's fields masked (see {@link mask}); the copy is made at the first change only: most
   * rows hold nothing to mask, and this runs on every row of every load (a `for…in`, not
   * `Object.entries`: no array per row).
   */
  #maskFields(
    value: Record<string, unknown>,
    secrets: SecretPattern,
    byName: boolean,
  ): Record<string, unknown> {
    let out: Record<string, unknown> | null = null;
    for (const name in value) {
      const item = value[name];
      const key = byName ? secrets.replace(name) : name;
      const masked =
        byName && item !== null && item !== undefined && (nameKind(name) & CREDENTIAL) !== 0
          ? MASK
          : typeof item === "string"
            ? secrets.replace(item)
            : item !== null && typeof item === "object"
              ? this.#mask(item, secrets, byName)
              : item;
      if (out === null && (key !== name || masked !== item)) out = fieldsBefore(value, name);
      if (out !== null) out[key] = masked;
    }
    return out ?? value;
  }

  toJSON(): string {
    return MASK;
  }

  [inspect.custom](): string {
    return `KnownSecrets(${this.#text.values.size} ${MASK})`;
  }
}
