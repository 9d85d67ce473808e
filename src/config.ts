import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { DEFAULT_TIME_ZONE, timeZoneProblem } from "./account-time-zone.js";
import { DEFAULT_TIMEOUTS } from "./api/http-client.js";
import {
  type ApiRevisionSetting,
  type CarriedConfig,
  type ConfigFile,
  carriedSettingsOf,
  configFileSchema,
  DEFAULT_MIN_RATE_SHARE,
  DEFAULT_PUBLISH_SNAPSHOT_WAIT_SECONDS,
  type StreamOptionsFile,
} from "./config-file-schema.js";
import { redactUrl, UsageError } from "./errors.js";
import { Secret } from "./secret.js";
import type { StreamName } from "./streams/registry.js";
import { subAccountName } from "./sub-account-name.js";
import { yamlErrorLine } from "./yaml-error-line.js";

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
  /** The account's IANA time zone (`timezone`); absent: UTC (see src/account-time-zone.ts). */
  readonly timeZone?: string;
  /** Sub-accounts' own time zones by id (`sub_account_timezones`); the others inherit `timeZone`. */
  readonly subAccountTimeZones?: Readonly<Record<number, string>>;
  /** Set for a sub-account read as an account of its own (fan-out): its master and its id. */
  readonly subAccountOf?: { readonly account: string; readonly id: number };
}

/** What an account's id-driven streams read: ids from the config, as opposed to ids the platform lists. */
export interface AccountSources {
  /** Sub-accounts to load and read as accounts of their own. */
  readonly subAccounts: readonly number[];
  /** 10DLC brands whose appeals load; undefined: every brand the platform lists. */
  readonly brandIds: readonly string[] | undefined;
  /** Validation tokens to poll. */
  readonly validationTokens: readonly string[];
  /** Countries (and the text-enabled filter) of the daily number-catalog snapshot. */
  readonly numberCatalog: { readonly countries: readonly number[]; readonly textEnabledOnly: boolean };
}

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

/** How final a stream's windows must be, and how many rejects a window may have. */
export interface StreamSettings {
  /** A window is complete only once read at least this many hours after its end. */
  readonly settleHours: number;
  /** A window rejecting a larger share of its rows (beyond chance) stays open and fails the run. */
  readonly maxRejectShare: number;
  /** A re-read replacing at least 10 stored rows with fewer by more than this share (or any with none) is held. */
  readonly maxShrinkShare: number;
  /** A window where more than this share of billable calls lack a charge (beyond chance) is held. */
  readonly maxMissingChargeShare: number;
  /**
   * A window more than this share of whose rows lie outside it (the platform's day shifted) stays
   * open and fails the run (default 0: any such row). Absent in settings built in code: 0.
   */
  readonly maxOutsideWindowShare?: number;
}

/** The effective configuration every command works from. */
export interface EtlConfig {
  readonly accounts: readonly AccountConfig[];
  readonly startDate: string | undefined;
  readonly windowDays: number;
  readonly lookbackDays: number;
  /** Defaults of every stream; `streamOptions` overrides them per stream (see {@link settingsOf}). */
  readonly settleHours: number;
  readonly maxRejectShare: number;
  readonly maxShrinkShare: number;
  readonly maxMissingChargeShare: number;
  /** Default of every stream's `maxOutsideWindowShare` (0 when absent: configs built in code). */
  readonly maxOutsideWindowShare?: number;
  readonly streamOptions: Readonly<Partial<Record<StreamName, Partial<StreamSettings>>>>;
  /** Calls older than this many days are no longer asked for a transcription (pending ones expire). */
  readonly transcriptionMaxAgeDays: number;
  /** Hours a read without the platform's `Date` header counts as made earlier (default 24; absent in configs built in code: 24). */
  readonly missingClockMarginHours?: number;
  readonly perPage: number;
  readonly timeouts: {
    readonly connectMs: number;
    readonly headersMs: number;
    /** Longest silence in the middle of a response body (default 10 s; configs built in code may leave it out). */
    readonly bodyIdleMs?: number;
    readonly totalMs: number;
  };
  readonly retry: { readonly maxAttempts: number; readonly maxTotalWaitMs: number };
  readonly databaseUrl: string | undefined;
  /** A file whose first line is the warehouse password (for a URL without one); read when connecting. */
  readonly databasePasswordFile: string | undefined;
  readonly embeddedDir: string;
  /** Longest one load statement may run; past it the window is loaded again on a new connection. */
  readonly loadStatementTimeoutMs: number;
  /** The BI role of this warehouse as configured; undefined: `<database>_bi_reader` (see biReaderRoleFor). */
  readonly biReaderRole: string | undefined;
  /** Longest wait of a publication for snapshots older than the build; absent in configs built in code: the default. */
  readonly publishSnapshotWaitMs?: number;
  /** Where the file came from, if any. */
  readonly source: string | undefined;
  /**
   * The file's settings but the process's own (`PROCESS_SETTINGS`: no secret URL among them), as
   * parsed (defaults filled, env overrides applied), every account's entry as written: what a
   * distributed work unit carries of its coordinator's config. Absent in configs built in code.
   */
  readonly carried?: CarriedConfig;
  /** Alerts and metrics (`alert_webhook_url`, `metrics_textfile`, `metrics_pushgateway_url`); absent in configs built in code. */
  readonly monitoring?: MonitoringConfig;
  /** Scale-out through the warehouse's job queue; absent in configs built in code: {@link DEFAULT_DISTRIBUTED}. */
  readonly distributed?: DistributedConfig;
  /** Retention of the month partitions of the large landing tables; absent in configs built in code: keep all. */
  readonly retention?: RetentionConfig;
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

/** The re-count of a config that says nothing: the last 35 days, the derived budget. */
export const DEFAULT_RECOUNT: RecountConfig = { days: 35, maxRequests: undefined };

/** What `run` and `nightly` retire from the landing tables partitioned by month (config `retention`). */
export interface RetentionConfig {
  /** Whole months kept before the current one; null keeps every month. */
  readonly landingMonths: number | null;
  /** Drop a retired month's partition, or detach it (kept as a plain table, read by nothing). */
  readonly action: "drop" | "detach";
}

/** The `retention` settings of a config that says nothing: keep everything. */
export const DEFAULT_RETENTION: RetentionConfig = { landingMonths: null, action: "drop" };

/** How `nightly`/`backfill --distributed` and `telecom-etl worker` share the work (config `distributed`). */
export interface DistributedConfig {
  /** `--distributed` by default. */
  readonly enabled: boolean;
  /** Tries of a unit after its first failure before the run gives it up. */
  readonly retryLimit: number;
  /** A worker silent this long loses its unit's lease. */
  readonly heartbeatSeconds: number;
  /** How long a unit waits for stream locks still held by a vanished worker's session. */
  readonly unitLockTimeoutSeconds: number;
  /** Units one worker process loads at once. */
  readonly workerUnits: number;
  /** The coordinator warns when no worker has taken a unit for this long. */
  readonly idleWarningSeconds: number;
  /** Without a heartbeat of any worker for this long, the coordinator gives the run up (exit 1). */
  readonly noWorkerTimeoutSeconds: number;
}

/** The `distributed` settings of a config that says nothing (the schema's defaults). */
export const DEFAULT_DISTRIBUTED: DistributedConfig = distributedSettings(
  configFileSchema.shape.distributed.parse(undefined),
);

/** Where a run's alerts and metrics go; URLs are secrets (a Slack webhook's path is its key). */
export interface MonitoringConfig {
  readonly alertWebhookUrl: Secret | undefined;
  readonly metricsTextfile: string | undefined;
  readonly metricsPushgatewayUrl: Secret | undefined;
}

/** Everything of an EtlConfig the file decides besides its accounts. */
export type FileSettings = Omit<EtlConfig, "accounts" | "databaseUrl" | "source" | "carried">;

/** The `distributed` settings of a parsed file, in the shape the code uses. */
function distributedSettings(file: ConfigFile["distributed"]): DistributedConfig {
  return {
    enabled: file.enabled,
    retryLimit: file.retry_limit,
    heartbeatSeconds: file.heartbeat_seconds,
    unitLockTimeoutSeconds: file.unit_lock_timeout_seconds,
    workerUnits: file.worker_units,
    idleWarningSeconds: file.idle_warning_seconds,
    noWorkerTimeoutSeconds: file.no_worker_timeout,
  };
}

/** The settings of a parsed config file, in the shape the code uses. */
function settingsFromFile(cfg: ConfigFile): FileSettings {
  const streamOptions: Partial<Record<StreamName, Partial<StreamSettings>>> = {};
  for (const [name, options] of Object.entries(cfg.stream_options) as [StreamName, StreamOptionsFile][]) {
    streamOptions[name] = {
      ...(options.settle_hours === undefined ? {} : { settleHours: options.settle_hours }),
      ...(options.max_reject_share === undefined ? {} : { maxRejectShare: options.max_reject_share }),
      ...(options.max_shrink_share === undefined ? {} : { maxShrinkShare: options.max_shrink_share }),
      ...(options.max_missing_charge_share === undefined
        ? {}
        : { maxMissingChargeShare: options.max_missing_charge_share }),
      ...(options.max_outside_window_share === undefined
        ? {}
        : { maxOutsideWindowShare: options.max_outside_window_share }),
    };
  }
  return {
    startDate: cfg.start_date,
    windowDays: cfg.window_days,
    lookbackDays: cfg.lookback_days,
    settleHours: cfg.settle_hours,
    maxRejectShare: cfg.max_reject_share,
    maxShrinkShare: cfg.max_shrink_share,
    maxMissingChargeShare: cfg.max_missing_charge_share,
    maxOutsideWindowShare: cfg.max_outside_window_share,
    streamOptions,
    transcriptionMaxAgeDays: cfg.transcription_max_age_days,
    missingClockMarginHours: cfg.missing_clock_margin_hours,
    perPage: cfg.per_page,
    timeouts: {
      connectMs: cfg.timeouts.connect_ms,
      headersMs: cfg.timeouts.headers_ms,
      bodyIdleMs: cfg.timeouts.body_idle_ms,
      totalMs: cfg.timeouts.total_ms,
    },
    retry: { maxAttempts: cfg.retry.max_attempts, maxTotalWaitMs: cfg.retry.max_total_wait_ms },
    embeddedDir: cfg.embedded_dir,
    databasePasswordFile: cfg.database_password_file,
    loadStatementTimeoutMs: cfg.load_statement_timeout_ms,
    biReaderRole: cfg.bi_reader_role,
    publishSnapshotWaitMs: cfg.publish_snapshot_wait_seconds * 1000,
    monitoring: {
      alertWebhookUrl: cfg.alert_webhook_url === undefined ? undefined : new Secret(cfg.alert_webhook_url),
      metricsTextfile: cfg.metrics_textfile,
      metricsPushgatewayUrl:
        cfg.metrics_pushgateway_url === undefined ? undefined : new Secret(cfg.metrics_pushgateway_url),
    },
    distributed: distributedSettings(cfg.distributed),
    retention: { landingMonths: cfg.retention.landing_months, action: cfg.retention.action },
    recount: { days: cfg.recount_days, maxRequests: cfg.recount_max_requests },
  };
}

/** The settings a config file that says nothing gets (for configs built in code: tests, benchmarks, the demo). */
export function defaultFileSettings(): FileSettings {
  return settingsFromFile(configFileSchema.parse({}));
}

/** The effective settle hours and hold thresholds of `stream`: its `stream_options`, else the top-level values. */
export function settingsOf(config: EtlConfig, stream: string): StreamSettings {
  const own = config.streamOptions[stream as StreamName] ?? {};
  return {
    settleHours: own.settleHours ?? config.settleHours,
    maxRejectShare: own.maxRejectShare ?? config.maxRejectShare,
    maxShrinkShare: own.maxShrinkShare ?? config.maxShrinkShare,
    maxMissingChargeShare: own.maxMissingChargeShare ?? config.maxMissingChargeShare,
    maxOutsideWindowShare: own.maxOutsideWindowShare ?? config.maxOutsideWindowShare ?? 0,
  };
}

/** Turns zod issues into one line each: `config: accounts.0.base_url: expected an http(s) URL`. */
export function formatIssues(prefix: string, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => `${prefix}: ${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("\n");
}

/** Environment variables that override the file (documented in the README). */
function envOverrides(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  const number = (name: string) => (env[name] === undefined ? undefined : Number(env[name]));
  if (env.TELECOM_ETL_START_DATE) overrides.start_date = env.TELECOM_ETL_START_DATE;
  if (env.TELECOM_ETL_WINDOW_DAYS) overrides.window_days = number("TELECOM_ETL_WINDOW_DAYS");
  if (env.TELECOM_ETL_LOOKBACK_DAYS) overrides.lookback_days = number("TELECOM_ETL_LOOKBACK_DAYS");
  if (env.TELECOM_ETL_STREAMS) overrides.streams = env.TELECOM_ETL_STREAMS.split(",").map((s) => s.trim());
  return overrides;
}

/**
 * Reads and validates the configuration: the YAML file (from `--config`, TELECOM_ETL_CONFIG, or
 * ./telecom-etl.yaml when present), then env overrides. With no accounts in the file,
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
  let raw: unknown = {};
  if (file) {
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
    try {
      raw = parseYaml(text) ?? {};
    } catch (error) {
      throw new UsageError(`config: ${file} ${yamlErrorLine(error, text)}`);
    }
    if (typeof raw !== "object" || Array.isArray(raw))
      throw new UsageError(`config: ${file} must be a YAML mapping`);
  }
  const merged = { ...(raw as Record<string, unknown>), ...envOverrides(env) };
  if (!(merged.accounts as unknown[] | undefined)?.length && env.TELECOM_API_URL) {
    merged.accounts = [{ name: "default", base_url: env.TELECOM_API_URL, api_key_env: "TELECOM_API_KEY" }];
  }
  const parsed = configFileSchema.safeParse(merged);
  if (!parsed.success) throw new UsageError(formatIssues("config", parsed.error.issues));
  return configFromFile(
    parsed.data,
    {
      source: file,
      databaseUrl: options.databaseUrl,
      requireAccounts: options.requireAccounts,
      touchedAccounts: options.touchedAccounts,
    },
    env,
  );
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
    databaseUrl: options.databaseUrl ?? env.DATABASE_URL,
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

/** The effective configuration with secrets replaced, for `config show` and logs. */
export function redactedConfig(config: EtlConfig): Record<string, unknown> {
  const databaseUrl = config.databaseUrl ? redactUrl(config.databaseUrl) : "(embedded)";
  return {
    source: config.source ?? "(none: defaults and environment)",
    database_url: databaseUrl,
    database_password_file: config.databasePasswordFile ?? "(none)",
    embedded_dir: config.embeddedDir,
    load_statement_timeout_ms: config.loadStatementTimeoutMs,
    bi_reader_role: config.biReaderRole ?? "(<database>_bi_reader)",
    publish_snapshot_wait_seconds:
      (config.publishSnapshotWaitMs ?? DEFAULT_PUBLISH_SNAPSHOT_WAIT_SECONDS * 1000) / 1000,
    alert_webhook_url: config.monitoring?.alertWebhookUrl === undefined ? "(none)" : "*** (set)",
    metrics_textfile: config.monitoring?.metricsTextfile ?? "(none)",
    metrics_pushgateway_url: config.monitoring?.metricsPushgatewayUrl === undefined ? "(none)" : "*** (set)",
    distributed: distributedFile(config.distributed ?? DEFAULT_DISTRIBUTED),
    retention: {
      landing_months: (config.retention ?? DEFAULT_RETENTION).landingMonths ?? "(keep all)",
      action: (config.retention ?? DEFAULT_RETENTION).action,
    },
    start_date: config.startDate ?? "(30 days before the first run)",
    window_days: config.windowDays,
    lookback_days: config.lookbackDays,
    settle_hours: config.settleHours,
    max_reject_share: config.maxRejectShare,
    max_shrink_share: config.maxShrinkShare,
    max_missing_charge_share: config.maxMissingChargeShare,
    max_outside_window_share: config.maxOutsideWindowShare ?? 0,
    recount_days: (config.recount ?? DEFAULT_RECOUNT).days,
    recount_max_requests:
      (config.recount ?? DEFAULT_RECOUNT).maxRequests ??
      "(derived: a week of runs re-counts every settled window of recount_days)",
    transcription_max_age_days: config.transcriptionMaxAgeDays,
    missing_clock_margin_hours: config.missingClockMarginHours ?? 24,
    stream_options: Object.fromEntries(
      Object.entries(config.streamOptions).map(([name, o]) => [
        name,
        {
          settle_hours: o?.settleHours,
          max_reject_share: o?.maxRejectShare,
          max_shrink_share: o?.maxShrinkShare,
          max_missing_charge_share: o?.maxMissingChargeShare,
          max_outside_window_share: o?.maxOutsideWindowShare,
        },
      ]),
    ),
    per_page: config.perPage,
    timeouts: {
      connect_ms: config.timeouts.connectMs,
      headers_ms: config.timeouts.headersMs,
      body_idle_ms: config.timeouts.bodyIdleMs ?? DEFAULT_TIMEOUTS.bodyIdleMs,
      total_ms: config.timeouts.totalMs,
    },
    retry: { max_attempts: config.retry.maxAttempts, max_total_wait_ms: config.retry.maxTotalWaitMs },
    accounts: config.accounts.map((a) => ({
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
    })),
  };
}

/** The `distributed` settings as the config file writes them. */
function distributedFile(d: DistributedConfig): Record<string, unknown> {
  return {
    enabled: d.enabled,
    retry_limit: d.retryLimit,
    heartbeat_seconds: d.heartbeatSeconds,
    unit_lock_timeout_seconds: d.unitLockTimeoutSeconds,
    worker_units: d.workerUnits,
    idle_warning_seconds: d.idleWarningSeconds,
    no_worker_timeout: d.noWorkerTimeoutSeconds,
  };
}
