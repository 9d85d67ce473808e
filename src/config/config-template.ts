/**
 * The config file `telecom-etl init` writes: the accounts the user named, with what each one must
 * set, and every other setting commented out with its default, both read from the zod schema (a
 * default is never written a second time here).
 */
import { stringify } from "yaml";
import type { z } from "zod";
import { settingMeta, unwrapped } from "./config-derive.js";
import { type ApiRevisionSetting, configFileSchema } from "./config-file-schema.js";
import { ENV_FILE_NAME } from "./env-file.js";

/** An account as `init` writes it: the settings without a default, and the revision when one was given. */
export interface TemplateAccount {
  readonly name: string;
  readonly baseUrl: string;
  readonly apiKeyEnv: string;
  readonly apiRevision?: ApiRevisionSetting | undefined;
}

/** The schema of one entry of `accounts`. */
const accountSchema = (unwrapped(configFileSchema.shape.accounts) as z.ZodArray).element as z.ZodObject;

/**
 * The name of the variable `init` has hold an account's key: `acme-eu` → `ACME_EU_API_KEY` (a name
 * starting with a digit gets `ACCOUNT_` in front: a variable's name cannot).
 */
export function apiKeyEnvOf(account: string): string {
  const upper = account.toUpperCase().replace(/-/g, "_");
  return /^[0-9]/.test(upper) ? `ACCOUNT_${upper}_API_KEY` : `${upper}_API_KEY`;
}

/** A value on one line, as YAML writes it in flow style (`{a: 1, b: [x, y]}`). */
function flow(value: unknown): string {
  return stringify(value, { collectionStyle: "flow", lineWidth: 0 }).trim();
}

/**
 * One commented line per setting of `shape` not in `given`: `# key: default`, with the variable that
 * overrides it; a setting without a default says what applies when it is unset.
 */
function commentedSettings(
  shape: Record<string, z.ZodType>,
  given: readonly string[],
  indent: string,
): string[] {
  return Object.entries(shape)
    .filter(([key]) => !given.includes(key))
    .map(([key, field]) => {
      const meta = settingMeta.get(field);
      const fallback = field.safeParse(undefined);
      const value = fallback.success && fallback.data !== undefined ? ` ${flow(fallback.data)}` : "";
      const notes = [
        value === "" && meta?.unset !== undefined ? `unset: ${meta.unset}` : undefined,
        meta?.env === undefined ? undefined : `env ${meta.env} overrides it`,
      ].filter((note) => note !== undefined);
      return `${indent}# ${key}:${value}${notes.length ? `   # ${notes.join("; ")}` : ""}`;
    });
}

/** One account's entry: what it must set, then its other settings commented with their defaults. */
function accountLines(account: TemplateAccount): string[] {
  const given: Record<string, string | undefined> = {
    name: account.name,
    base_url: account.baseUrl,
    api_key_env: account.apiKeyEnv,
    api_revision: account.apiRevision,
  };
  const set = Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const [first, ...rest] = set.map(([key, value]) => `${key}: ${flow(value)}`);
  return [
    `  - ${first}`,
    ...rest.map((line) => `    ${line}`),
    ...commentedSettings(
      accountSchema.shape,
      set.map(([key]) => key),
      "    ",
    ),
  ];
}

/**
 * The text of a config file for `accounts`: a header saying where secrets go, the accounts, then
 * every top-level setting commented out with its default. It passes {@link configFileSchema} as
 * written, and with every commented setting that shows a value uncommented it means the same.
 */
export function configTemplate(accounts: readonly TemplateAccount[]): string {
  return [
    '# telecom-etl configuration, written by `telecom-etl init`. The README\'s "Configuration" table',
    "# explains every setting; `telecom-etl config show` prints the effective values.",
    "# A commented line shows the setting's default: uncomment it to change it.",
    `# Secrets never go here: api_key_env NAMES the variable holding each account's key, set in the`,
    `# environment or in ${ENV_FILE_NAME} beside this file (mode 0600; see .env.example).`,
    "accounts:",
    ...accounts.flatMap(accountLines),
    ...commentedSettings(configFileSchema.shape, ["accounts"], ""),
    "",
  ].join("\n");
}
