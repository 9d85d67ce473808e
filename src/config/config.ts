import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { DEFAULT_TIME_ZONE, timeZoneProblem } from "../core/account-time-zone.js";
import { redactUrl, UsageError } from "../core/errors.js";
import { Secret } from "../core/secret.js";
import { subAccountName } from "../core/sub-account-name.js";
import { yamlErrorLine } from "../core/yaml-error-line.js";
import type { StreamName } from "../streams/registry.js";
import type { AccountSources } from "../streams/stream-requests.js";
import {
  type CamelCased,
  camelCased,
  codeName,
  envOverrides,
  fileShaped,
  type OptionalKeys,
  shownValue,
} from "./config-derive.js";
import {
  type ApiRevisionSetting,
  type CarriedConfig,
  type ConfigFile,
  carriedSettingsOf,
  configFileSchema,
  DEFAULT_MIN_RATE_SHARE,
  type StreamOptionsFile,
  streamOptionsSchema,
} from "./config-file-schema.js";
import { applyEnvFile, type EnvFileUse } from "./env-file.js";
import { DATABASE_URL_ENV, envVariablesOf } from "./env-variables.js";

export {
  API_REVISION_SETTINGS,
  type ApiRevisionSetting,
  CARRIED_SETTINGS,
  type CarriedConfig,
  type ConfigFile,
  carriedConfigSchema,
  configFileSchema,
  DEFAULT_MIN_RATE_SHARE,
  PROCESS_SETTINGS,
  SCHEMA_CONTRACTS,
  type SchemaContract,
} from "./config-file-schema.js";

/** One platform account, with its key resolved from the environment. */
export interface AccountConfig {
  readonly name: string;
  readonly baseUrl: string;
  readonly apiKeyEnv: string;
  readonly apiKey: Secret;
  readonly rate: {
    readonly requestsPerSecond: number;
    readonly burst: number;
    readonly concurrency: number;
    /** Floor of the adaptive rate (default {@link DEFAULT_MIN_RATE_SHARE} of the maximum). */
    readonly minRequestsPerSecond?: number;
  };
  readonly streams: readonly string[];
  /** Which revision of the platform's API to read with; `auto` (also when absent) decides once per run. */
  readonly apiRevision?: ApiRevisionSetting;
  /** Ids the id-driven streams of this account read (absent: none configured). */
  readonly sources?: AccountSources;
  /** The account's IANA time zone (`timezone`); absent: UTC (see src/core/account-time-zone.ts). */
  readonly timeZone?: string;
  /** Sub-accounts' own time zones by id (`sub_account_timezones`); the others inherit `timeZone`. */
  readonly subAccountTimeZones?: Readonly<Record<number, string>>;
  /** Set for a sub-account read as an account of its own (fan-out): its master and its id. */
  readonly subAccountOf?: { readonly account: string; readonly id: number };
}

export type { AccountSources } from "../streams/stream-requests.js";

/** The sources of an account, with nothing configured where the config says nothing. */
export function sourcesOf(account: AccountConfig): AccountSources {
  return (
    account.sources ?? {
      subAccounts: [],
      brandIds: undefined,
      validationTokens: [],
      numberCatalog: { countries: [], textEnabledOnly: false },
    }
  );
}

/**
 * Settings the code does not take as the camelCase of their YAML key, each mapped by hand in
 * {@link settingsFromFile} and {@link fileView}: `accounts` (resolved with their keys from the
 * environment), `streams` (each account's default), `recount_days`/`recount_max_requests` (grouped
 * as `recount`), `publish_snapshot_wait_seconds` (the code counts milliseconds), and the alert and
 * metrics settings (grouped as `monitoring`, URLs held as Secrets). Every other setting derives.
 */
export const SHAPED_SETTINGS = [
  "accounts",
  "streams",
  "recount_days",
  "recount_max_requests",
  "publish_snapshot_wait_seconds",
  "alert_webhook_url",
  "metrics_textfile",
  "metrics_pushgateway_url",
] as const satisfies readonly (keyof ConfigFile)[];

/** The schema of the settings that derive: the file's but {@link SHAPED_SETTINGS}. */
const derivedSchema = configFileSchema.omit(
  Object.fromEntries(SHAPED_SETTINGS.map((key) => [key, true])) as {
    [K in (typeof SHAPED_SETTINGS)[number]]: true;
  },
);

/** The settings that derive, in the code's shape. */
type DerivedSettings = CamelCased<z.infer<typeof derivedSchema>>;

/** How final a stream's windows must be, and how many rejects a window may have (`stream_options.<stream>`). */
export type StreamSettings = OptionalKeys<
  { readonly [K in keyof CamelCased<StreamOptionsFile>]-?: NonNullable<CamelCased<StreamOptionsFile>[K]> },
  // Absent in settings built in code: 0 (any row outside its window holds it). Absent contract: `_extra`.
  "maxOutsideWindowShare" | "schemaContract"
>;

/**
 * The effective configuration every command works from: the file's settings in camelCase (see
 * src/config/config-derive.ts), those of {@link SHAPED_SETTINGS} shaped by hand, and what the process adds.
 * A config built in code (tests, benchmarks, the demo) may leave out the settings added after it
 * was first written (their defaults apply).
 */
export interface EtlConfig
  extends OptionalKeys<
    Omit<DerivedSettings, "streamOptions" | "timeouts">,
    "maxOutsideWindowShare" | "missingClockMarginHours" | "distributed" | "retention"
  > {
  readonly accounts: readonly AccountConfig[];
  /** Overrides of the top-level settings per stream (see {@link settingsOf}). */
  readonly streamOptions: Readonly<Partial<Record<StreamName, Partial<StreamSettings>>>>;
  /** Per request; `bodyIdleMs` absent in configs built in code: the default. */
  readonly timeouts: OptionalKeys<DerivedSettings["timeouts"], "bodyIdleMs">;
  readonly databaseUrl: string | undefined;
  /** Longest wait of a publication for snapshots older than the build; absent in configs built in code: the default. */
  readonly publishSnapshotWaitMs?: number;
  /** Where the file came from, if any. */
  readonly source: string | undefined;
  /** The `.env` beside the file, when there is one: which variables it set (names only). */
  readonly envFile?: EnvFileUse | undefined;
  /**
   * The file's settings but the process's own (`PROCESS_SETTINGS`: no secret URL among them), as
   * parsed (defaults filled, env overrides applied), every account's entry as written: what a
   * distributed work unit carries of its coordinator's config. Absent in configs built in code.
   */
  readonly carried?: CarriedConfig;
  /** Alerts and metrics (`alert_webhook_url`, `metrics_textfile`, `metrics_pushgateway_url`); absent in configs built in code. */
  readonly monitoring?: MonitoringConfig;
  /** The re-count of settled windows every `run` makes; absent in configs built in code: {@link DEFAULT_RECOUNT}. */
  readonly recount?: RecountConfig;
}

/** How every `run` re-counts settled windows against the platform's totals (config `recount_days`, `recount_max_requests`). */
export interface RecountConfig {
  /** Settled windows ending in the last this many days are re-counted (0: no re-count). */
  readonly days: number;
  /** Requests per account and run; undefined: derived so a week of runs checks every window (recountBudget). */
  readonly maxRequests: number | undefined;
}

/** The re-count of a config that says nothing (the schema's defaults): the last 35 days, the derived budget. */
export const DEFAULT_RECOUNT: RecountConfig = {
  days: configFileSchema.shape.recount_days.parse(undefined),
  maxRequests: undefined,
};

/** What `run` and `nightly` retire from the landing tables partitioned by month (config `retention`). */
export type RetentionConfig = DerivedSettings["retention"];

/** The `retention` settings of a config that says nothing (the schema's defaults): keep everything. */
export const DEFAULT_RETENTION = camelCased(
  configFileSchema.shape.retention,
  configFileSchema.shape.retention.parse(undefined),
) as RetentionConfig;

/** How `nightly`/`backfill --distributed` and `telecom-etl worker` share the work (config `distributed`). */
export type DistributedConfig = DerivedSettings["distributed"];

/** The `distributed` settings of a config that says nothing (the schema's defaults). */
export const DEFAULT_DISTRIBUTED = camelCased(
  configFileSchema.shape.distributed,
  configFileSchema.shape.distributed.parse(undefined),
) as DistributedConfig;

/** Where a run's alerts and metrics go; URLs are secrets (a Slack webhook's path is its key). */
export interface MonitoringConfig {
  readonly alertWebhookUrl: Secret | undefined;
  readonly metricsTextfile: string | undefined;
  readonly metricsPushgatewayUrl: Secret | undefined;
}

/** Everything of an EtlConfig the file decides besides its accounts. */
export type FileSettings = Omit<EtlConfig, "accounts" | "databaseUrl" | "source" | "carried">;

/** The settings of a parsed config file, in the shape the code uses. */
function settingsFromFile(cfg: ConfigFile): FileSettings {
  const secret = (url: string | undefined) => (url === undefined ? undefined : new Secret(url));
  return {
    ...(camelCased(derivedSchema, cfg) as DerivedSettings),
    publishSnapshotWaitMs: cfg.publish_snapshot_wait_seconds * 1000,
    monitoring: {
      alertWebhookUrl: secret(cfg.alert_webhook_url),
      metricsTextfile: cfg.metrics_textfile,
      metricsPushgatewayUrl: secret(cfg.metrics_pushgateway_url),
    },
    recount: { days: cfg.recount_days, maxRequests: cfg.recount_max_requests },
  };
}

/**
 * The settings of a config as the file writes them (the inverse of {@link settingsFromFile});
 * absent where a config built in code leaves them out, secrets still Secrets.
 */
function fileView(config: EtlConfig): Record<string, unknown> {
  const recount = config.recount ?? DEFAULT_RECOUNT;
  return {
    ...(fileShaped(derivedSchema, config) as Record<string, unknown>),
    recount_days: recount.days,
    recount_max_requests: recount.maxRequests,
    publish_snapshot_wait_seconds:
      config.publishSnapshotWaitMs === undefined ? undefined : config.publishSnapshotWaitMs / 1000,
    alert_webhook_url: config.monitoring?.alertWebhookUrl,
    metrics_textfile: config.monitoring?.metricsTextfile,
    metrics_pushgateway_url: config.monitoring?.metricsPushgatewayUrl,
  };
}

/** The settings a config file that says nothing gets (for configs built in code: tests, benchmarks, the demo). */
export function defaultFileSettings(): FileSettings {
  return settingsFromFile(configFileSchema.parse({}));
}

/** The code's names of the settings a stream may override, as `stream_options.<stream>` lists them. */
const STREAM_SETTING_NAMES = Object.keys(streamOptionsSchema.shape).map(codeName) as (keyof StreamSettings)[];

/** The schema's defaults in the code's shape, for settings a config built in code leaves out. */
const FILE_DEFAULTS: FileSettings = defaultFileSettings();

/**
 * The effective settle hours and hold thresholds of `stream`: its `stream_options`, else the
 * top-level values (else, in a config built in code without them, the defaults).
 */
export function settingsOf(config: EtlConfig, stream: string): StreamSettings {
  const own: Partial<StreamSettings> = config.streamOptions[stream as StreamName] ?? {};
  const topLevel = (name: keyof StreamSettings) =>
    name in FILE_DEFAULTS
      ? (config[name as keyof FileSettings] ?? FILE_DEFAULTS[name as keyof FileSettings])
      : undefined;
  return Object.fromEntries(
    STREAM_SETTING_NAMES.map((name) => [name, own[name] ?? topLevel(name)]),
  ) as unknown as StreamSettings;
}

/** Turns zod issues into one line each: `config: accounts.0.base_url: expected an http(s) URL`. */
export function formatIssues(prefix: string, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => `${prefix}: ${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("\n");
}

/** The config file's YAML as a mapping; one UsageError line for a folder, an unreadable file, bad YAML or another shape. */
async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  // A bind mount of a file that is missing on the host makes docker compose create a directory.
  if ((await stat(file).catch(() => undefined))?.isDirectory()) {
    throw new UsageError(
      `config: ${file} is a directory, not a file (docker compose creates an empty directory where the file it should mount is missing): put the config file on the host path it mounts, or point --config / TELECOM_ETL_CONFIG at the file`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new UsageError(`config: cannot read ${file}; check --config or TELECOM_ETL_CONFIG`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new UsageError(`config: ${file} ${yamlErrorLine(error, text)}`);
  }
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new UsageError(`config: ${file} must be a YAML mapping`);
  return raw as Record<string, unknown>;
}

/**
 * Reads and validates the configuration: the YAML file (from `--config`, TELECOM_ETL_CONFIG, or
 * ./telecom-etl.yaml when present), then env overrides, then the variables the config refers to
 * from the `.env` beside the file (see src/config/env-file.ts). With no accounts in the file,
 * TELECOM_API_URL + TELECOM_API_KEY define a single account `default`. Every problem is a
 * UsageError with one line per issue; secrets only ever come from the environment.
 */
export async function loadConfig(
  options: {
    file?: string | undefined;
    databaseUrl?: string | undefined;
    requireAccounts?: boolean;
    /**
     * The accounts the command touches (`--accounts`, an account name or one of its sub-accounts'):
     * only their keys must be set. Absent: every account's.
     */
    touchedAccounts?: readonly string[] | undefined;
  },
  env: NodeJS.ProcessEnv = process.env,
): Promise<EtlConfig> {
  const file =
    options.file ??
    env.TELECOM_ETL_CONFIG ??
    (existsSync("telecom-etl.yaml") ? "telecom-etl.yaml" : undefined);
  const raw = file ? await readConfigFile(file) : {};
  const merged = { ...raw, ...envOverrides(configFileSchema, env) };
  if (!(merged.accounts as unknown[] | undefined)?.length && env.TELECOM_API_URL) {
    merged.accounts = [{ name: "default", base_url: env.TELECOM_API_URL, api_key_env: "TELECOM_API_KEY" }];
  }
  const parsed = configFileSchema.safeParse(merged);
  if (!parsed.success) throw new UsageError(formatIssues("config", parsed.error.issues));
  const named = envVariablesOf(parsed.data.accounts.map((a) => ({ name: a.name, apiKeyEnv: a.api_key_env })));
  const envFile = file
    ? await applyEnvFile(
        path.dirname(file),
        named.map((variable) => variable.name),
        env,
      )
    : undefined;
  const config = configFromFile(
    parsed.data,
    {
      source: file,
      databaseUrl: options.databaseUrl,
      requireAccounts: options.requireAccounts,
      touchedAccounts: options.touchedAccounts,
    },
    env,
  );
  return { ...config, envFile };
}

/**
 * The effective configuration of a parsed config file (defaults filled, env overrides applied):
 * accounts with their keys from `env`, checked as {@link loadConfig} says. A distributed worker
 * builds each unit's configuration with it from the settings its coordinator sent.
 */
export function configFromFile(
  cfg: ConfigFile,
  options: {
    source: string | undefined;
    databaseUrl?: string | undefined;
    requireAccounts?: boolean;
    touchedAccounts?: readonly string[] | undefined;
  },
  env: NodeJS.ProcessEnv = process.env,
): EtlConfig {
  if (options.requireAccounts !== false && cfg.accounts.length === 0) {
    throw new UsageError(
      "config: no accounts; set TELECOM_API_URL and TELECOM_API_KEY, or list accounts in telecom-etl.yaml",
    );
  }
  refuseSubAccountsReadTwice(cfg);
  const names = new Set<string>();
  const accounts = cfg.accounts.map((account, index): AccountConfig => {
    if (names.has(account.name))
      throw new UsageError(`config: accounts.${index}.name: duplicate name ${account.name}`);
    names.add(account.name);
    const key = env[account.api_key_env];
    const problem = keyProblem(account.name, account.api_key_env, key);
    if (
      options.requireAccounts !== false &&
      problem !== undefined &&
      touches(options.touchedAccounts, account)
    ) {
      throw new UsageError(problem);
    }
    refuseBadTimeZones(account);
    if (key && !/^[\x21-\x7e]+$/.test(key)) {
      throw new UsageError(
        `account ${account.name}: env var ${account.api_key_env} holds spaces, line breaks or other characters an API key cannot have; check how it is set`,
      );
    }
    return {
      name: account.name,
      baseUrl: account.base_url.replace(/\/+$/, ""),
      apiKeyEnv: account.api_key_env,
      apiKey: new Secret(key ?? ""),
      rate: {
        requestsPerSecond: account.rate.requests_per_second,
        burst: account.rate.burst,
        concurrency: account.rate.concurrency,
        minRequestsPerSecond: Math.min(
          account.rate.requests_per_second,
          account.rate.min_requests_per_second ?? account.rate.requests_per_second * DEFAULT_MIN_RATE_SHARE,
        ),
      },
      streams: account.streams ?? cfg.streams,
      apiRevision: account.api_revision,
      ...(account.timezone === undefined ? {} : { timeZone: account.timezone }),
      subAccountTimeZones: Object.fromEntries(
        Object.entries(account.sub_account_timezones).map(([id, zone]) => [Number(id), zone]),
      ),
      sources: {
        subAccounts: account.sub_accounts,
        brandIds: account.brand_ids,
        validationTokens: account.validation_tokens,
        numberCatalog: {
          countries: account.number_catalog.countries,
          textEnabledOnly: account.number_catalog.text_enabled_only,
        },
      },
    };
  });
  if (options.databaseUrl !== undefined) refusePasswordInFlag(options.databaseUrl);
  return {
    accounts,
    ...settingsFromFile(cfg),
    databaseUrl: options.databaseUrl ?? env[DATABASE_URL_ENV],
    source: options.source,
    carried: carriedSettingsOf(cfg),
  };
}

/**
 * Why an account's key cannot be used: its variable is not set, or set to nothing (a line
 * `ACME_KEY=` in an env file). Undefined when the key is there.
 */
export function keyProblem(account: string, envVar: string, key: string | undefined): string | undefined {
  if (key === undefined)
    return `account ${account}: env var ${envVar} is not set; set it to the account's API key in the loader's environment`;
  if (key === "")
    return `account ${account}: env var ${envVar} is empty; set it to the account's API key (an env file line "${envVar}=" sets it to nothing)`;
  return undefined;
}

/** True when a command touching `touched` (undefined: every account) touches `account` or one of its sub-accounts. */
function touches(touched: readonly string[] | undefined, account: ConfigFile["accounts"][number]): boolean {
  if (touched === undefined) return true;
  return touched.some(
    (name) =>
      name === account.name || account.sub_accounts.some((id) => subAccountName(account.name, id) === name),
  );
}

/**
 * An account's `timezone` and `sub_account_timezones` must be IANA zone names (no fixed offsets), and
 * a sub-account given a zone must be one the account lists: one line naming the account and the fix.
 */
function refuseBadTimeZones(account: ConfigFile["accounts"][number]): void {
  const problem =
    account.timezone === undefined ? undefined : timeZoneProblem(account.name, account.timezone);
  if (problem !== undefined) throw new UsageError(`config: ${problem}`);
  for (const [id, zone] of Object.entries(account.sub_account_timezones)) {
    if (!account.sub_accounts.includes(Number(id))) {
      throw new UsageError(
        `config: account ${account.name}: sub_account_timezones names sub-account ${id}, which its sub_accounts does not list; add it there or remove the zone`,
      );
    }
    const subProblem = timeZoneProblem(account.name, zone, `sub_account_timezones.${id}`);
    if (subProblem !== undefined) throw new UsageError(`config: ${subProblem}`);
  }
}

/**
 * A sub-account id listed twice (by one account, or by two) would be read, and loaded, twice: the
 * platform's sub-account ids are its organization ids, one per platform account. Refused with one
 * line naming both entries (the second one's insert used to fail with a raw unique-key violation).
 */
function refuseSubAccountsReadTwice(cfg: ConfigFile): void {
  const firstEntry = new Map<number, { account: string; where: string }>();
  cfg.accounts.forEach((account, index) => {
    account.sub_accounts.forEach((id, position) => {
      const where = `accounts.${index}.sub_accounts.${position}`;
      const first = firstEntry.get(id);
      if (first === undefined) {
        firstEntry.set(id, { account: account.name, where });
        return;
      }
      const by =
        first.account === account.name
          ? `account ${account.name}`
          : `accounts ${first.account} and ${account.name}`;
      throw new UsageError(
        `config: ${where}: sub-account ${id} is listed twice (${first.where} and ${where}, ${by}): it would be read twice; list it once`,
      );
    });
  });
}

/**
 * `--database-url` must not carry a password: a process's command line is readable by every user
 * of the machine (`ps`, /proc). The environment (DATABASE_URL) and a password file are not.
 */
function refusePasswordInFlag(url: string): void {
  let hasPassword: boolean;
  try {
    const parsed = new URL(url);
    hasPassword = parsed.password !== "" || parsed.searchParams.has("password");
  } catch {
    hasPassword = /^[^:/]+:\/\/[^/@]*:[^/@]*@/.test(url) || /[?&]password=/i.test(url);
  }
  if (hasPassword) {
    throw new UsageError(
      "--database-url carries a password, which every user of this machine can read in `ps`: set DATABASE_URL in the environment instead, or give the URL without its password and put the password in a file named by database_password_file in the config",
    );
  }
}

/**
 * The settings `config show` prints before the others (the process's and the warehouse's, as it
 * always has); the rest follow in the schema's order. `streams` is shown resolved, per account.
 */
const SHOWN_FIRST = [
  "database_password_file",
  "embedded_dir",
  "load_statement_timeout_ms",
  "bi_reader_role",
  "publish_snapshot_wait_seconds",
  "alert_webhook_url",
  "metrics_textfile",
  "metrics_pushgateway_url",
  "distributed",
  "retention",
] as const satisfies readonly (keyof ConfigFile)[];

/** The effective configuration with secrets replaced, for `config show` and logs. */
export function redactedConfig(config: EtlConfig): Record<string, unknown> {
  const file = fileView(config);
  const defaults: Record<string, unknown> = configFileSchema.parse({});
  const shape: Record<string, z.ZodType> = configFileSchema.shape;
  const rest = Object.keys(shape).filter(
    (key) => !(SHOWN_FIRST as readonly string[]).includes(key) && key !== "accounts" && key !== "streams",
  );
  return {
    source: config.source ?? "(none: defaults and environment)",
    // Where the env file is and which names it set or not: never a value.
    ...(config.envFile === undefined ? {} : { env_file: { ...config.envFile } }),
    database_url: config.databaseUrl ? redactUrl(config.databaseUrl) : "(embedded)",
    ...Object.fromEntries(
      [...SHOWN_FIRST, ...rest].map((key) => [
        key,
        shownValue(shape[key] as z.ZodType, file[key], defaults[key]),
      ]),
    ),
    accounts: config.accounts.map(accountShown),
  };
}

/** One account as `config show` prints it: its key only said to be set or not. */
function accountShown(a: AccountConfig): Record<string, unknown> {
  return {
    name: a.name,
    base_url: redactUrl(a.baseUrl),
    api_key_env: a.apiKeyEnv,
    api_key: a.apiKey.reveal() ? "*** (set)" : "(not set)",
    rate: {
      requests_per_second: a.rate.requestsPerSecond,
      burst: a.rate.burst,
      concurrency: a.rate.concurrency,
    },
    streams: a.streams,
    api_revision: a.apiRevision ?? "auto",
    timezone: a.timeZone ?? DEFAULT_TIME_ZONE,
    sub_account_timezones: a.subAccountTimeZones ?? {},
    sub_accounts: sourcesOf(a).subAccounts,
    brand_ids: sourcesOf(a).brandIds ?? "(every brand the platform lists)",
    validation_tokens: sourcesOf(a).validationTokens.length,
    number_catalog: sourcesOf(a).numberCatalog,
  };
}
