/**
 * The environment variables a config refers to, written once: each account's `api_key_env`, the
 * warehouse's URL and the BI role's password. `init` lists them in `.env.example`, and they are the
 * only variables read from a `.env` file.
 */
import { BI_READER_PASSWORD_ENV } from "../warehouse/admin/bi-reader-role.js";

/** The variable holding the warehouse's URL (unset: the embedded Postgres). */
export const DATABASE_URL_ENV = "DATABASE_URL";

/** One variable a config refers to. */
export interface EnvVariable {
  readonly name: string;
  /** What it holds, for a comment in `.env.example`. */
  readonly purpose: string;
  /** A run needs it (an account's key); the others are optional. */
  readonly required: boolean;
  /** Its value is a secret: masked wherever the process prints (a URL's password is redacted anyway). */
  readonly secret: boolean;
}

/** The variables a config with `accounts` refers to: one per distinct `api_key_env`, then the warehouse's. */
export function envVariablesOf(accounts: readonly { name: string; apiKeyEnv: string }[]): EnvVariable[] {
  const keys = new Map<string, string[]>();
  for (const account of accounts)
    keys.set(account.apiKeyEnv, [...(keys.get(account.apiKeyEnv) ?? []), account.name]);
  return [
    ...[...keys].map(([name, owners]) => ({
      name,
      purpose: `the API key of account${owners.length > 1 ? "s" : ""} ${owners.join(", ")}`,
      required: true,
      secret: true,
    })),
    {
      name: DATABASE_URL_ENV,
      purpose: "the warehouse, postgres://USER:PASSWORD@HOST:5432/DATABASE; unset: an embedded Postgres",
      required: false,
      secret: false,
    },
    {
      name: BI_READER_PASSWORD_ENV,
      purpose: 'the password BI tools log in with as the warehouse\'s BI role (README "BI access")',
      required: false,
      secret: true,
    },
  ];
}

/** The text of `.env.example` for `variables`: a required one as `NAME=`, an optional one commented out. */
export function envExampleOf(variables: readonly EnvVariable[]): string {
  return [
    "# Copy to .env beside telecom-etl.yaml, mode 0600 (install -m 600 .env.example .env), and fill it in;",
    "# keep it out of git. telecom-etl reads only these variables from it; one already set in the",
    "# environment wins. Optional ones are commented out.",
    ...variables.flatMap((variable) => [
      `# ${variable.purpose}`,
      `${variable.required ? "" : "# "}${variable.name}=`,
    ]),
    "",
  ].join("\n");
}
