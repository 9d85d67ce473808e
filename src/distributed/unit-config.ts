/**
 * The configuration a distributed work unit is loaded by: its coordinator's, never the worker's
 * own. A worker deployed before a config change (3 of 7 streams, `settle_hours: 1`) loaded units
 * by its own file for two nights, exit 0: four streams never loaded, late CDRs lost. So a unit
 * carries the coordinator's settings (every setting of the file's schema but the process's own,
 * `PROCESS_SETTINGS`) and its account's entry; the worker adds only what must stay its own: the
 * account's key (from its environment, under the name the coordinator's config gives) and the
 * account's base_url (it may hold credentials, so the unit carries it without them and the worker
 * checks its own is the same place). What it cannot match (an account it
 * does not know, a key variable it lacks, another platform URL) refuses the unit in one line.
 */
import {
  CARRIED_SETTINGS,
  type CarriedConfig,
  type ConfigFile,
  configFileSchema,
  configFromFile,
  type EtlConfig,
  keyProblem,
} from "../config/config.js";
import { redactUrl, UsageError } from "../core/errors.js";

/** A base URL as it may travel: credentials masked, no trailing slash (the loader strips it too). */
function carriedBaseUrl(url: string): string {
  return redactUrl(url).replace(/\/+$/, "");
}

/** The carried settings of a config; a distributed run needs them (configs built in code have none). */
function carriedOf(config: EtlConfig): CarriedConfig {
  if (config.carried === undefined)
    throw new Error("a distributed run needs a configuration read by loadConfig (its file's settings)");
  return config.carried;
}

/**
 * What a unit of `account` (a configured account: a sub-account's master) carries of `config`:
 * every carried setting, and that account's entry with its base_url's credentials masked.
 */
export function carriedConfigOf(config: EtlConfig, account: string): CarriedConfig {
  const carried = carriedOf(config);
  const entry = carried.accounts.find((a) => a.name === account);
  if (entry === undefined) throw new Error(`account ${account} is not in the coordinator's config`);
  return { ...carried, accounts: [{ ...entry, base_url: carriedBaseUrl(entry.base_url) }] };
}

/**
 * The configuration this worker (`own`) loads a unit by: the unit's settings and account, with
 * the account's key read from `env` and its base_url from `own`. Throws a UsageError naming the
 * difference when the worker cannot: an account it does not know, another platform URL, or the key
 * variable the coordinator's config names missing here. The process's own settings
 * (`PROCESS_SETTINGS`) are the schema's defaults in it: a unit's load reads none of them (the
 * worker's command keeps its own).
 */
export function unitConfig(
  own: EtlConfig,
  carried: CarriedConfig,
  env: NodeJS.ProcessEnv = process.env,
): EtlConfig {
  const ownCarried = carriedOf(own);
  const [entry] = carried.accounts;
  if (entry === undefined || carried.accounts.length !== 1)
    throw new UsageError(
      "the work unit carries no account (or several): its coordinator is of another release",
    );
  const mine = ownCarried.accounts.find((a) => a.name === entry.name);
  const where = own.source ?? "the environment";
  if (mine === undefined) {
    throw new UsageError(
      `unknown account ${JSON.stringify(entry.name)} in this worker's config (${where}; configured: ${ownCarried.accounts.map((a) => a.name).join(", ") || "(none)"}): deploy the coordinator's config to this worker`,
    );
  }
  if (carriedBaseUrl(mine.base_url) !== entry.base_url) {
    throw new UsageError(
      `account ${entry.name}: this worker's config (${where}) reads it from ${carriedBaseUrl(mine.base_url)}, the coordinator's from ${entry.base_url}: deploy the coordinator's config to this worker`,
    );
  }
  const problem = keyProblem(entry.name, entry.api_key_env, env[entry.api_key_env]);
  if (problem !== undefined) {
    const named =
      mine.api_key_env === entry.api_key_env ? "" : ` (this worker's config names ${mine.api_key_env})`;
    throw new UsageError(
      `${problem}; the coordinator's config reads the key from ${entry.api_key_env}${named}`,
    );
  }
  const file: ConfigFile = {
    ...configFileSchema.parse({}),
    ...carried,
    // The worker's other accounts stay (never loaded by the unit): the checks across accounts see them.
    accounts: [
      { ...entry, base_url: mine.base_url },
      ...ownCarried.accounts.filter((a) => a.name !== entry.name),
    ],
  };
  const config = configFromFile(
    file,
    { source: `${where}, with the coordinator's settings`, touchedAccounts: [entry.name] },
    env,
  );
  return { ...config, databaseUrl: own.databaseUrl };
}

/**
 * The settings in which this worker's own config differs from the unit's (`accounts.<name>.<key>`
 * for its account), for a warning: the unit is loaded by the coordinator's, the operator should
 * still deploy it.
 */
export function settingsDiffering(own: EtlConfig, carried: CarriedConfig): string[] {
  const ownCarried = carriedOf(own);
  const differing: string[] = CARRIED_SETTINGS.filter(
    (key) => key !== "accounts" && canonicalJson(ownCarried[key]) !== canonicalJson(carried[key]),
  );
  for (const entry of carried.accounts) {
    const mine = ownCarried.accounts.find((a) => a.name === entry.name);
    if (mine === undefined) continue;
    for (const key of Object.keys(entry) as (keyof typeof entry)[]) {
      if (key === "base_url") continue;
      if (canonicalJson(mine[key]) !== canonicalJson(entry[key]))
        differing.push(`accounts.${entry.name}.${key}`);
    }
  }
  return differing;
}

/** JSON with object keys sorted, so two equal settings written in another order compare equal. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
