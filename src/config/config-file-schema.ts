/**
 * The config file's schema (YAML, snake_case as users write it), validated with zod: accounts and
 * their rate, streams, settling and reject thresholds, per-stream options, paging, timeouts, retry.
 */
import { z } from "zod";
import { redactUrl } from "../core/errors.js";
import { dayProblem } from "../core/utc-days.js";
import { STREAM_NAMES, type StreamName } from "../streams/registry.js";
import { settingMeta } from "./config-derive.js";

/** The stream names as zod's enum wants them (a non-empty tuple). */
const streamName = z.enum(STREAM_NAMES as unknown as readonly [StreamName, ...StreamName[]]);

/** Share of `requests_per_second` the adaptive rate never drops below unless configured otherwise. */
export const DEFAULT_MIN_RATE_SHARE = 0.1;

/** Seconds a publication of the marts waits for snapshots older than the build (`publish_snapshot_wait_seconds`). */
export const DEFAULT_PUBLISH_SNAPSHOT_WAIT_SECONDS = 120;

/** Revisions of the platform's API an account can be read with; `auto` asks the platform once per run. */
export const API_REVISION_SETTINGS = ["auto", "2024", "2026"] as const;
/** An account's `api_revision` setting. */
export type ApiRevisionSetting = (typeof API_REVISION_SETTINGS)[number];

/** A real calendar day written `YYYY-MM-DD`; `2026-02-30` says it is not a real date. */
const isoDate = z.string().superRefine((text, context) => {
  const problem = dayProblem(text);
  if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
});

/**
 * An account's base URL: http(s), without the API's version path (`https://api.example.com`, not
 * `…/v1`): every request adds `/v1/…` itself, so a `/v1` here would ask for `/v1/v1/…`, answered
 * 404 and taken for a missing list or another API revision.
 */
const VERSION_PATH = /\/v\d+\/*$/;
const baseUrl = z
  .url({ protocol: /^https?$/, error: "expected an http(s) URL" })
  .superRefine((text, context) => {
    if (!URL.canParse(text) || !VERSION_PATH.test(new URL(text).pathname)) return;
    const [, before = "", version = "", after = ""] = /^([^?#]*?)\/(v\d+)\/*([?#].*)?$/.exec(text) ?? [];
    context.addIssue({
      code: "custom",
      message: `${redactUrl(text)} ends in the API's version path /${version}, which every request adds itself: set the account's base_url (or TELECOM_API_URL) to ${redactUrl(before + after)}`,
    });
  });

const rateSchema = z.strictObject({
  requests_per_second: z.number().positive().default(10),
  burst: z.number().int().positive().default(20),
  concurrency: z.number().int().positive().max(64).default(4),
  min_requests_per_second: z.number().positive().optional(),
});

const accountSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "expected lower-case letters, digits, - or _"),
  base_url: baseUrl,
  api_key_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "expected the NAME of an environment variable"),
  rate: rateSchema.prefault({}),
  streams: z.array(streamName).optional().register(settingMeta, { unset: "(the top-level streams)" }),
  api_revision: z.enum(API_REVISION_SETTINGS).default("auto"),
  /** Sub-account ids (`GET /v1/sub-organizations/{id}`): their records load, and each is read as its own account. */
  sub_accounts: z.array(z.number().int().positive()).default([]),
  /**
   * The account's time zone, an IANA name (`Europe/Berlin`); default UTC. The marts' local dates and
   * hours use it. Checked in loadConfig (the message names the account).
   */
  timezone: z.string().min(1).optional().register(settingMeta, { unset: "(UTC)" }),
  /** A sub-account's own time zone, by sub-account id (`"4321": Asia/Kolkata`); default: the account's. */
  sub_account_timezones: z
    .record(z.string().regex(/^[1-9][0-9]*$/, "expected a sub-account id"), z.string().min(1))
    .default({}),
  /** 10DLC brands whose appeals load; default: every brand the platform lists. */
  brand_ids: z
    .array(z.string().min(1))
    .optional()
    .register(settingMeta, { unset: "(every brand the platform lists)" }),
  /** Validation tokens polled until done (more can be added with `telecom-etl track validation`). */
  validation_tokens: z.array(z.string().min(1)).default([]),
  /** Countries whose purchasable numbers are snapshotted daily (`number_catalog`). */
  number_catalog: z
    .strictObject({
      countries: z.array(z.number().int().positive()).default([]),
      text_enabled_only: z.boolean().default(false),
    })
    .prefault({}),
});

/** Hours after a window's end before a read of it counts as final (late rows have arrived by then). */
const settleHours = z
  .number()
  .min(0)
  .max(24 * 90);
/** Share of a window's rows that may be rejected before the window is held open. */
const rejectShare = z.number().min(0).max(1);

/**
 * What a run does with a top-level field a stream's schema does not know (`stream_options.<stream>.
 * schema_contract`; absent: keep it in `_extra` and report it): `freeze` rejects the row (kept as
 * sent in `etl.rejects`, the reason naming the field), `evolve` adds a scalar field as a typed
 * column of the landing table (`etl.schema_changes`), `discard` drops it (counted and reported).
 */
export const SCHEMA_CONTRACTS = ["freeze", "evolve", "discard"] as const;
/** A stream's schema contract. */
export type SchemaContract = (typeof SCHEMA_CONTRACTS)[number];

/** Settings one stream may override (`stream_options.<stream>`), and one only a stream has (`schema_contract`). */
export const streamOptionsSchema = z.strictObject({
  settle_hours: settleHours.optional(),
  max_reject_share: rejectShare.optional(),
  max_shrink_share: rejectShare.optional(),
  max_missing_charge_share: rejectShare.optional(),
  max_outside_window_share: rejectShare.optional(),
  schema_contract: z.enum(SCHEMA_CONTRACTS).optional(),
});

/** One stream's `stream_options` entry as written. */
export type StreamOptionsFile = z.infer<typeof streamOptionsSchema>;

/** The YAML file's schema (snake_case, as users write it). */
export const configFileSchema = z.strictObject({
  accounts: z.array(accountSchema).default([]),
  streams: z
    .array(streamName)
    .min(1)
    .default([...STREAM_NAMES])
    .register(settingMeta, { env: "TELECOM_ETL_STREAMS" }),
  start_date: isoDate
    .optional()
    .register(settingMeta, { env: "TELECOM_ETL_START_DATE", unset: "(30 days before the first run)" }),
  window_days: z
    .number()
    .int()
    .min(1)
    .max(31)
    .default(1)
    .register(settingMeta, { env: "TELECOM_ETL_WINDOW_DAYS" }),
  lookback_days: z
    .number()
    .int()
    .min(0)
    .max(60)
    .default(3)
    .register(settingMeta, { env: "TELECOM_ETL_LOOKBACK_DAYS" }),
  settle_hours: settleHours.default(72),
  max_reject_share: rejectShare.default(0.01),
  max_shrink_share: rejectShare.default(0.5),
  max_missing_charge_share: rejectShare.default(0.05),
  /** Share of a window's rows that may lie outside it (a shifted platform day) before it is held. */
  max_outside_window_share: rejectShare.default(0),
  /**
   * Days back the re-count of every `run` compares settled windows with the platform's totals
   * (one `per_page=1` request per window and direction); 0 turns it off.
   */
  recount_days: z.number().int().min(0).max(400).default(35),
  /**
   * Requests the re-count of one account may send per run; default: enough that a week of runs
   * checks every settled window of the last `recount_days` (see recountBudget).
   */
  recount_max_requests: z.number().int().min(0).max(100_000).optional().register(settingMeta, {
    unset: "(derived: a week of runs re-counts every settled window of recount_days)",
  }),
  transcription_max_age_days: z.number().int().min(1).max(90).default(7),
  /** Hours a read without the platform's Date header counts as made earlier (its clock unknown, ours may be fast). */
  missing_clock_margin_hours: z
    .number()
    .min(0)
    .max(24 * 30)
    .default(24),
  stream_options: z
    .record(z.string(), streamOptionsSchema)
    .superRefine((options, context) => {
      for (const name of Object.keys(options)) {
        if (!(STREAM_NAMES as readonly string[]).includes(name)) {
          context.addIssue({
            code: "custom",
            path: [name],
            message: `unknown stream; known: ${STREAM_NAMES.join(", ")}`,
          });
        }
      }
    })
    .default({}),
  per_page: z.number().int().min(1).max(1000).default(100),
  timeouts: z
    .strictObject({
      connect_ms: z.number().int().positive().default(10_000),
      headers_ms: z.number().int().positive().default(10_000),
      /** No byte of a response body for this long (after its headers) fails the attempt, retried. */
      body_idle_ms: z.number().int().positive().default(10_000),
      total_ms: z.number().int().positive().default(60_000),
    })
    .prefault({}),
  retry: z
    .strictObject({
      max_attempts: z.number().int().min(1).max(20).default(6),
      max_total_wait_ms: z.number().int().positive().default(120_000),
    })
    .prefault({}),
  embedded_dir: z.string().default(".telecom-etl/postgres"),
  /**
   * Longest one load statement (a window's COPY, its merge) may run before the load is given up
   * and tried again on a new connection: a stalled warehouse connection must not hang the run.
   */
  load_statement_timeout_ms: z.number().int().min(100).default(300_000),
  /**
   * How long a publication of the marts waits for sessions holding a snapshot from before the
   * build (REPEATABLE READ or SERIALIZABLE transactions, which would read the new marts empty)
   * before it gives up (exit 5, BI keeps the previous marts).
   */
  publish_snapshot_wait_seconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(DEFAULT_PUBLISH_SNAPSHOT_WAIT_SECONDS),
  /**
   * The role BI tools read this warehouse's marts with; default `<database>_bi_reader`. Roles are
   * server-wide: two warehouses on one server must not share one.
   */
  bi_reader_role: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, "expected a role name: lower-case letters, digits and _, at most 63")
    .optional()
    .register(settingMeta, { unset: "(<database>_bi_reader)" }),
  /**
   * A file holding the warehouse password (its first line), for a DATABASE_URL / --database-url
   * without one: a password on the command line shows in `ps`.
   */
  database_password_file: z.string().min(1).optional().register(settingMeta, { unset: "(none)" }),
  /** A Slack-compatible incoming webhook: one message when a run ends badly or a source is stale. A secret. */
  alert_webhook_url: z
    .url({ protocol: /^https?$/, error: "expected an http(s) URL" })
    .optional()
    .register(settingMeta, { secret: true, unset: "(none)" }),
  /** Where to write the run's metrics for node-exporter's textfile collector (a `.prom` file). */
  metrics_textfile: z
    .string()
    .regex(
      /\.prom$/,
      "expected a file name ending in .prom (node-exporter's textfile collector reads only those)",
    )
    .optional()
    .register(settingMeta, { unset: "(none)" }),
  /** A Prometheus Pushgateway to push the run's metrics to (job `telecom_etl`). */
  metrics_pushgateway_url: z
    .url({ protocol: /^https?$/, error: "expected an http(s) URL" })
    .optional()
    .register(settingMeta, { secret: true, unset: "(none)" }),
  /** Scale-out: `nightly`/`backfill` hand accounts to `telecom-etl worker` processes through a queue in the warehouse. */
  distributed: z
    .strictObject({
      /** Default of `--distributed`: plan and enqueue the work, let workers load it. */
      enabled: z.boolean().default(false),
      /** Tries of a unit after its first failure (a worker that died, a failed load) before the run gives it up. */
      retry_limit: z.number().int().min(0).max(20).default(2),
      /** A working unit's lease: a worker silent this long (killed, cut off) loses it and another worker takes the unit. */
      heartbeat_seconds: z.number().int().min(10).max(3600).default(30),
      /** How long a unit waits for the stream locks a vanished worker's session may still hold. */
      unit_lock_timeout_seconds: z.number().int().min(0).max(86_400).default(300),
      /** Units (accounts) one worker process loads at once. */
      worker_units: z.number().int().min(1).max(64).default(2),
      /** The coordinator warns when no worker has taken any unit for this long. */
      idle_warning_seconds: z.number().int().min(5).max(86_400).default(120),
      /**
       * Seconds the coordinator waits without a heartbeat of any worker of its queue before it gives
       * the run up (exit 1); `--wait-for-workers` waits anyway.
       */
      no_worker_timeout: z.number().int().min(15).max(86_400).default(120),
    })
    .prefault({}),
  /** How long the landing tables partitioned by month (cdrs, messages, recordings, transactions) keep their months. */
  retention: z
    .strictObject({
      /**
       * Keep this many whole months before the current one; older month partitions are retired by
       * `run` and `nightly` (logged, and listed in the run's `etl.runs.retired_partitions`). Null: keep all.
       */
      landing_months: z
        .number()
        .int()
        .min(1)
        .max(1200)
        .nullable()
        .default(null)
        .register(settingMeta, { unset: "(keep all)" }),
      /** `drop` deletes a retired month; `detach` keeps it as a plain table that no query reads any more. */
      action: z.enum(["drop", "detach"]).default("drop"),
    })
    .prefault({}),
});

/** The config file as written. */
export type ConfigFile = z.infer<typeof configFileSchema>;

/**
 * Settings of the process that reads the file rather than of the load: where its warehouse
 * password and embedded server are, where its alerts and metrics go (both URLs are secrets), how
 * it takes part in distributed runs, what it retires and which BI role it grants. A distributed
 * work unit carries every OTHER setting from its coordinator (see {@link carriedConfigSchema}), so
 * a setting added to the schema travels with the units unless it is listed here.
 */
export const PROCESS_SETTINGS = [
  "embedded_dir",
  "database_password_file",
  "alert_webhook_url",
  "metrics_textfile",
  "metrics_pushgateway_url",
  "distributed",
  "retention",
  "bi_reader_role",
] as const satisfies readonly (keyof ConfigFile)[];

/** A setting of {@link PROCESS_SETTINGS}. */
export type ProcessSetting = (typeof PROCESS_SETTINGS)[number];

/**
 * What a distributed work unit carries of its coordinator's config: the file's schema without the
 * {@link PROCESS_SETTINGS} (its accounts' keys are never in the file: each process reads them from
 * its own environment).
 */
export const carriedConfigSchema = configFileSchema.omit(
  Object.fromEntries(PROCESS_SETTINGS.map((key) => [key, true])) as { [K in ProcessSetting]: true },
);

/** The coordinator's settings a work unit carries. */
export type CarriedConfig = z.infer<typeof carriedConfigSchema>;

/** The names of the settings a unit carries: every key of the schema but the process's own. */
export const CARRIED_SETTINGS = Object.keys(carriedConfigSchema.shape) as (keyof CarriedConfig)[];

/** The carried settings of a parsed file (every account's entry as written). */
export function carriedSettingsOf(file: ConfigFile): CarriedConfig {
  return Object.fromEntries(CARRIED_SETTINGS.map((key) => [key, file[key]])) as CarriedConfig;
}
