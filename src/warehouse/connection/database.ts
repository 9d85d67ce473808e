import type { ColumnType, Generated } from "kysely";

/**
 * The warehouse as Kysely sees it: one interface per table. Landing tables of schema `platform`
 * are derived from their streams' column declarations in `src/streams/platform-tables.ts`.
 */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json = ColumnType<unknown, string, string>;

/** etl.runs: one row per CLI invocation that touches data. */
export interface RunsTable {
  id: Generated<number>;
  command: string;
  arguments: ColumnType<unknown, string | undefined, string>;
  started_at: Timestamp;
  finished_at: Date | string | null;
  status: string;
  exit_code: number | null;
  host: ColumnType<string, string | undefined, string>;
  pid: number | null;
  /** The dbt steps a `nightly` ran after its load and its final exit code (see NightlyDbtRecord); null for other runs. */
  dbt: ColumnType<unknown, string | null | undefined, string | null>;
  /** What retention retired after the load (see RetiredPartition), `{error, cutoff}` when it failed; null when it did not run. */
  retired_partitions: ColumnType<unknown, string | null | undefined, string | null>;
}

/** etl.run_slices: statistics of one slice (window) of one stream of one account in one run. */
export interface RunSlicesTable {
  id: Generated<number>;
  run_id: number;
  account: string;
  stream: string;
  slice: string;
  window_start: ColumnType<string | null, string | null | undefined, string | null>;
  window_end: ColumnType<string | null, string | null | undefined, string | null>;
  status: SliceStatus;
  /** Why a `held` read was held (`too_many_rejects`, `shrink`, `drift`, `missing_charges`); null otherwise. */
  hold_reason: ColumnType<string | null, string | null | undefined, string | null>;
  requests: ColumnType<number, number | undefined, number>;
  retries: ColumnType<number, number | undefined, number>;
  /** Answers 429 among the requests (the platform throttled the slice). */
  throttled: ColumnType<number, number | undefined, number>;
  rows_fetched: ColumnType<number, number | undefined, number>;
  rows_inserted: ColumnType<number, number | undefined, number>;
  rows_updated: ColumnType<number, number | undefined, number>;
  rows_unchanged: ColumnType<number, number | undefined, number>;
  rows_deleted: ColumnType<number, number | undefined, number>;
  rows_rejected: ColumnType<number, number | undefined, number>;
  started_at: Timestamp;
  finished_at: Timestamp;
  error: string | null;
  /** Rows per data-quality check (`{"missing_charge": 4}`); null when nothing was counted. */
  quality: ColumnType<unknown, string | null | undefined, string | null>;
  /** This read completed (settled) its window. */
  settled: ColumnType<boolean, boolean | undefined, boolean>;
}

/**
 * How a slice ended: loaded (`succeeded`); read but held (`held`: the read looked wrong, too many
 * rejects, a shrink, a drift or missing charges, see `hold_reason`: nothing of the window changed
 * and it stays open), not loaded (`failed`), or not read because the key lacks the stream's
 * permission (`skipped`).
 */
export const SLICE_STATUSES = ["succeeded", "held", "failed", "skipped"] as const;
/** Status of an `etl.run_slices` row. */
export type SliceStatus = (typeof SLICE_STATUSES)[number];

/** etl.run_streams: one (account, stream) of one run, planned then finished. */
export interface RunStreamsTable {
  run_id: number;
  account: string;
  stream: string;
  status: string;
  api_revision: string | null;
  windows_planned: ColumnType<number, number | undefined, number>;
  windows_loaded: ColumnType<number, number | undefined, number>;
  windows_completed: ColumnType<number, number | undefined, number>;
  windows_failed: ColumnType<number, number | undefined, number>;
  windows_held: ColumnType<number, number | undefined, number>;
  requests: ColumnType<number, number | undefined, number>;
  rows_fetched: ColumnType<number, number | undefined, number>;
  rows_inserted: ColumnType<number, number | undefined, number>;
  rows_updated: ColumnType<number, number | undefined, number>;
  rows_rejected: ColumnType<number, number | undefined, number>;
  /** Stored rows the stream's reads deleted (migration 0025). */
  rows_deleted: ColumnType<number, number | undefined, number>;
  quality: ColumnType<unknown, string | null | undefined, string | null>;
  errors: ColumnType<unknown, string | undefined, string>;
  /** What the run's re-count of the stream's settled windows did (see RecountRecord); null when none ran. */
  recount: ColumnType<unknown, string | null | undefined, string | null>;
}

/** etl.stream_state: the set of completed windows per (account, stream). */
export interface StreamStateTable {
  account: string;
  stream: string;
  window_start: ColumnType<string, string, string>;
  window_end: ColumnType<string, string, string>;
  completed_at: Timestamp;
  run_id: number | null;
  /** When the settling read happened (the earlier of the run's and the platform's clocks). */
  read_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** etl.window_counts: what the latest re-count of a settled window (one of its requests) found (migration 0025). */
export interface WindowCountsTable {
  account: string;
  stream: string;
  window_start: ColumnType<string, string, string>;
  window_end: ColumnType<string, string, string>;
  /** The request counted: its direction (`placed`), '' for a stream asked once per window. */
  part: string;
  platform_total: number;
  /** Landing rows of the window (and part) plus its pending rejects, when it was checked. */
  warehouse_rows: number;
  checked_at: Timestamp;
  run_id: number | null;
}

/** etl.reopened_windows: windows that were settled and are open again, until a read settles them (migration 0025). */
export interface ReopenedWindowsTable {
  account: string;
  stream: string;
  window_start: ColumnType<string, string, string>;
  window_end: ColumnType<string, string, string>;
  /** `recount`, or the hold reason of the read that opened it. */
  reason: string;
  /** The re-count found fewer rows on the platform than in the warehouse. */
  fewer_on_platform: ColumnType<boolean, boolean | undefined, boolean>;
  run_id: number | null;
  reopened_at: Timestamp;
}

/** etl.rejects: rows that failed validation, with the raw JSON and the zod issues. */
export interface RejectsTable {
  id: Generated<number>;
  run_id: number | null;
  account: string;
  stream: string;
  slice: string;
  raw: Json;
  issues: Json;
  /** Values the request implied for the row (`{"direction":"placed"}`); null for rows stored before 0004. */
  implied: ColumnType<unknown, string | null | undefined, string | null>;
  received_at: Timestamp;
  replayed_at: Date | string | null;
}

/**
 * etl.published_marts: one row per publication of the marts (write-audit-publish): when, the run
 * (null for a `transform` alone), the dbt invocation whose build it was, and the marts it moved.
 */
export interface PublishedMartsTable {
  id: Generated<number>;
  published_at: Timestamp;
  run_id: number | null;
  dbt_invocation_id: string | null;
  marts: ColumnType<string[], string[], string[]>;
  /** When a full (unselected) build started reading the landing tables; null for a `--select` build. */
  landing_seen_before: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** etl.tracked_requests: asynchronous platform requests (transcriptions, validations) being polled. */
export interface TrackedRequestsTable {
  kind: string;
  account: string;
  external_id: string;
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  last_error: string | null;
  /** Where the id came from (`{"source": "call"}`, `"file"`, `"config"`, `"cli"`). */
  details: ColumnType<unknown, string | undefined, string>;
}

/** etl.unknown_fields: a field the platform sends that the stream's schema does not know (kept in `_extra`). */
export interface UnknownFieldsTable {
  stream: string;
  field: string;
  first_seen_run: number | null;
  first_seen_at: Timestamp;
  first_seen_account: string;
  first_seen_window: string;
  last_seen_run: number | null;
  last_seen_at: Timestamp;
  /** JSON type of a value seen: `string`, `number`, `boolean`, `object`, `array`, `null`. */
  example_type: string;
  rows_seen: ColumnType<number, number | undefined, number>;
  accounts: ColumnType<string[], string[] | undefined, string[]>;
}

/** etl.account_time_zones: each account's IANA time zone as the config last set it (migration 0020). */
export interface AccountTimeZonesTable {
  account: string;
  time_zone: string;
  /** When the zone last changed (not when it was last written): the incremental marts compare it. */
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** etl.key_rate_buckets: the token bucket of one API key, shared by worker processes (migration 0022). */
export interface KeyRateBucketsTable {
  /** Salted SHA-256 hex of the key (never the key). */
  bucket_id: string;
  /** Requests per second now. */
  rate: number;
  burst: number;
  /** As of `refilled_at`; negative: reservations handed out. */
  tokens: number;
  refilled_at: Timestamp;
  /** The configured maximum, requests per second. */
  max_rate: number;
  updated_at: Timestamp;
}

/** The control tables of schema `etl`. */
export interface EtlTables {
  "etl.runs": RunsTable;
  "etl.run_slices": RunSlicesTable;
  "etl.run_streams": RunStreamsTable;
  "etl.stream_state": StreamStateTable;
  "etl.window_counts": WindowCountsTable;
  "etl.reopened_windows": ReopenedWindowsTable;
  "etl.rejects": RejectsTable;
  "etl.tracked_requests": TrackedRequestsTable;
  "etl.published_marts": PublishedMartsTable;
  "etl.unknown_fields": UnknownFieldsTable;
  "etl.account_time_zones": AccountTimeZonesTable;
  "etl.key_rate_buckets": KeyRateBucketsTable;
}

/** Every table the code queries through Kysely. Landing tables are reached through `sql` by stream name. */
export type Database = EtlTables;
