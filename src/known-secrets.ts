/**
 * Masking of credentials in what the loader stores or logs (rejected raw rows, `_extra`, column
 * values, log lines, error messages), two ways: by name (a field whose name looks like a credential,
 * in any case or separator: `apiKey`, `api-key`, `ACCESS_TOKEN`, `password`) and by value (every
 * secret the run knows: the accounts' keys, the sub-account keys and trunk tokens it has seen, is
 * replaced wherever it appears, whatever field it is in). Masking by name alone missed a platform
 * that renamed `api_key` to `apiKey`: the key landed in `etl.rejects` in clear.
 */
import { inspect } from "node:util";
import { isRawJsonNumber } from "./platform/exact-number.js";

/** What a masked value reads as. */
export const MASK = "***";

/**
 * Secrets shorter than this are not masked by value: replacing a 3-character string everywhere
 * would mangle ordinary data. (Every key and token the platform issues is far longer.)
 */
export const MIN_SECRET_LENGTH = 8;

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
 * Endings of a name (lower case, separators removed) whose value is a secret worth remembering and
 * masking everywhere: narrower than {@link isCredentialName}, since a `sort_key` or `token_count`
 * value masked in its own row does no harm, but masked in every other row it would.
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

/**
 * True for a field name that looks like a credential's: a word `key`, `token`, `secret`,
 * `password` (and the usual compounds written as one word: `apikey`, `accesstoken`), in any case or
 * separator. Such a field's value is masked wherever a row is stored or logged.
 */
export function isCredentialName(name: string): boolean {
  return nameWords(name).some(
    (word) => CREDENTIAL_WORDS.has(word) || word.startsWith("secret") || word.startsWith("passw"),
  );
}

/** True for a field whose value is a secret to mask by value everywhere (`api_key`, `accessToken`, `password`). */
export function holdsSecretValue(name: string): boolean {
  const flat = nameWords(name).join("");
  return SECRET_VALUE_ENDINGS.some((ending) => flat.endsWith(ending));
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

/**
 * The secrets one run knows, and the masking that uses them. One per run (the CLI's process, shared
 * by its logger): seeded with the accounts' keys, fed by the HTTP client with every secret-looking
 * field of every answer (a sub-account's `api_key`, a trunk's `access_token`, whatever they are
 * renamed to) and by the sub-account fan-out with the keys it fetches. Never serialised.
 */
export class KnownSecrets {
  readonly #values = new Set<string>();
  #pattern: RegExp | null = null;
  #compiled = true;

  /** Remembers `value` (ignored when shorter than {@link MIN_SECRET_LENGTH}). */
  add(value: string | undefined): void {
    if (value === undefined || value.length < MIN_SECRET_LENGTH || this.#values.has(value)) return;
    this.#values.add(value);
    this.#compiled = false;
  }

  /** Remembers the string value of every field, at any depth of `body`, that {@link holdsSecretValue}. */
  harvest(body: unknown): void {
    if (Array.isArray(body)) {
      for (const item of body) this.harvest(item);
      return;
    }
    if (!isPlainObject(body)) return;
    for (const [name, value] of Object.entries(body)) {
      if (typeof value === "string") {
        if (holdsSecretValue(name)) this.add(value);
      } else if (value !== null && typeof value === "object") {
        this.harvest(value);
      }
    }
  }

  /** How many secrets are known. */
  get size(): number {
    return this.#values.size;
  }

  /** `text` with every known secret replaced by {@link MASK}. */
  maskText(text: string): string {
    const pattern = this.#regex();
    if (pattern === null) return text;
    return text.replace(pattern, MASK);
  }

  /**
   * A copy of `value` (a JSON-like tree: a raw row, `_extra`, a log line's fields) with every field
   * whose name {@link isCredentialName} masked (null stays null) and every known secret replaced
   * in every string, keys included. Values that are not plain objects, arrays or strings are kept
   * as they are; what holds nothing to mask is returned unchanged (the same object).
   */
  mask<T>(value: T): T {
    return this.#mask(value, true) as T;
  }

  /**
   * Like {@link mask}, by value only: field names are left alone, neither masked by name nor
   * searched for secrets (a row's typed columns, named by the loader; a column named `token` is a
   * validation's id, not a credential).
   */
  maskValues<T>(value: T): T {
    return this.#mask(value, false) as T;
  }

  #mask(value: unknown, byName: boolean): unknown {
    if (typeof value === "string") return this.maskText(value);
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item) => {
        const masked = this.#mask(item, byName);
        if (masked !== item) changed = true;
        return masked;
      });
      return changed ? out : value;
    }
    if (!isPlainObject(value)) return value;
    // The copy is made at the first change only: most rows hold nothing to mask, and this runs on
    // every row of every load. Field names are masked by name only (a row's typed columns are named
    // by the loader, never by the platform).
    const entries = Object.entries(value);
    let out: Record<string, unknown> | null = null;
    for (let i = 0; i < entries.length; i++) {
      const [name, item] = entries[i]!;
      const key = byName ? this.maskText(name) : name;
      const masked =
        byName && item !== null && item !== undefined && isCredentialName(name)
          ? MASK
          : this.#mask(item, byName);
      if (out === null && (key !== name || masked !== item)) {
        out = {};
        for (let j = 0; j < i; j++) out[entries[j]![0]] = entries[j]![1];
      }
      if (out !== null) out[key] = masked;
    }
    return out ?? value;
  }

  #regex(): RegExp | null {
    if (!this.#compiled) {
      const alternatives = [...this.#values].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.#pattern = alternatives.length === 0 ? null : new RegExp(alternatives.join("|"), "g");
      this.#compiled = true;
    }
    return this.#pattern;
  }

  toJSON(): string {
    return MASK;
  }

  [inspect.custom](): string {
    return `KnownSecrets(${this.#values.size} ${MASK})`;
  }
}
