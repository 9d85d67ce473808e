import { type Kysely, sql } from "kysely";
import type { Database, SliceStatus } from "../warehouse/connection/database.js";
import { shownCommand } from "../warehouse/state/dbt-run-record.js";
import { REPLAY_RUN_COMMAND } from "../warehouse/state/run-records.js";
import { listSchemaChanges, type SchemaChange } from "../warehouse/state/schema-changes.js";
import { type StreamStatus, streamStatus } from "../warehouse/state/stream-status.js";
import type { RecountRecord } from "../warehouse/state/window-counts.js";

/**
 * What the loader did, read from the control schema `etl` only: the run the page is about, what it
 * did per account, stream and window, and where every (account, stream) stands now.
 */

/** Hours after which a source counts as late (warn) and stale (error): dbt's source freshness rules. */
export const FRESHNESS_HOURS = { warn: 36, error: 72 } as const;

/** How fresh a source is: `ok`, `late` (past the warning), `stale` (past the error), or `never` read. */
export type FreshnessLevel = "ok" | "late" | "stale" | "never";

/** The run a page is about, as `etl.runs` recorded it. */
export interface NightRun {
  readonly id: number;
  readonly command: string;
  readonly status: string;
  readonly exitCode: number | null;
  readonly startedAt: Date;
  readonly finishedAt: Date | null;
}

/** One slice (window) of one stream of one account in the run. */
export interface NightWindow {
  readonly account: string;
  readonly stream: string;
  /** `2026-08-01..2026-08-02`, or `full` / a lookup's label for streams without windows. */
  readonly slice: string;
  readonly status: SliceStatus;
  readonly holdReason: string | null;
  readonly error: string | null;
  readonly rowsFetched: number;
  /** Stored rows the read deleted (the platform no longer lists them). */
  readonly rowsDeleted: number;
  readonly rowsRejected: number;
  readonly requests: number;
  readonly retries: number;
  /** Requests answered 429. */
  readonly throttled: number;
}

/** What the run's re-count of one (account, stream)'s settled windows did. */
export interface NightRecount {
  readonly account: string;
  readonly stream: string;
  readonly record: RecountRecord;
}

/** Where one (account, stream) stands, with how fresh its data is. */
export interface NightStream {
  readonly status: StreamStatus;
  /** When the loader last read a slice of it successfully (loaded or held), or null. */
  readonly lastReadAt: Date | null;
  readonly freshness: FreshnessLevel;
}

/** Everything the loader's half of the page shows. */
export interface NightFacts {
  /** The run the page is about, or null when nothing was ever run. */
  readonly run: NightRun | null;
  /** The run's slices, by account, stream and slice label. */
  readonly windows: readonly NightWindow[];
  /** Every configured or loaded (account, stream). */
  readonly streams: readonly NightStream[];
  /** The run's re-counts of settled windows, by account and stream (none when it made none). */
  readonly recounts: readonly NightRecount[];
  /** The columns the run's `evolve` schema contracts added (`etl.schema_changes`); absent: none. */
  readonly schemaChanges?: readonly SchemaChange[];
}

/** Freshness of a source last read at `lastReadAt`, seen at `now`. */
export function freshnessOf(lastReadAt: Date | null, now: number): FreshnessLevel {
  if (lastReadAt === null) return "never";
  const hours = (now - lastReadAt.getTime()) / 3_600_000;
  return hours >= FRESHNESS_HOURS.error ? "stale" : hours >= FRESHNESS_HOURS.warn ? "late" : "ok";
}

/** The latest run that worked on streams (a rejects replay is not a night), or run `runId`. */
async function readRun(db: Kysely<Database>, runId: number | undefined): Promise<NightRun | null> {
  let query = db
    .selectFrom("etl.runs as r")
    .select(["r.id", "r.command", "r.dbt", "r.status", "r.exit_code", "r.started_at", "r.finished_at"])
    .orderBy("r.id", "desc")
    .limit(1);
  query =
    runId === undefined
      ? query
          .where("r.command", "!=", REPLAY_RUN_COMMAND)
          .where((eb) =>
            eb.exists(
              eb.selectFrom("etl.run_streams as p").select("p.run_id").whereRef("p.run_id", "=", "r.id"),
            ),
          )
      : query.where("r.id", "=", runId);
  const row = await query.executeTakeFirst();
  if (row === undefined) return null;
  return {
    id: Number(row.id),
    command: shownCommand(row.command, row.dbt),
    status: row.status,
    exitCode: row.exit_code,
    startedAt: new Date(row.started_at),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
  };
}

async function readWindows(db: Kysely<Database>, runId: number): Promise<NightWindow[]> {
  const rows = await db
    .selectFrom("etl.run_slices")
    .select([
      "account",
      "stream",
      "slice",
      "status",
      "hold_reason",
      "error",
      "rows_fetched",
      "rows_deleted",
      "rows_rejected",
      "requests",
      "retries",
      "throttled",
    ])
    .where("run_id", "=", runId)
    .orderBy("account")
    .orderBy("stream")
    .orderBy("slice")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    account: row.account,
    stream: row.stream,
    slice: row.slice,
    status: row.status,
    holdReason: row.hold_reason,
    error: row.error,
    rowsFetched: row.rows_fetched,
    rowsDeleted: row.rows_deleted,
    rowsRejected: row.rows_rejected,
    requests: row.requests,
    retries: row.retries,
    throttled: row.throttled,
  }));
}

/** What run `runId` re-counted, per (account, stream) it re-counted. */
async function readRecounts(db: Kysely<Database>, runId: number): Promise<NightRecount[]> {
  const rows = await db
    .selectFrom("etl.run_streams")
    .select(["account", "stream", "recount"])
    .where("run_id", "=", runId)
    .where("recount", "is not", null)
    .orderBy("account")
    .orderBy("stream")
    .execute();
  return rows.map((row) => ({
    account: row.account,
    stream: row.stream,
    // The JSON the run wrote from a RecountRecord (window-counts.ts), read back as it was written.
    record: row.recount as unknown as RecountRecord,
  }));
}

/** When each (account, stream) was last read successfully: a loaded or held slice (the API answered). */
async function lastReads(db: Kysely<Database>): Promise<Map<string, Date>> {
  const rows = await db
    .selectFrom("etl.run_slices")
    .select(["account", "stream", sql<Date>`max(finished_at)`.as("last")])
    .where("status", "in", ["succeeded", "held"])
    .groupBy(["account", "stream"])
    .execute();
  return new Map(rows.map((row) => [JSON.stringify([row.account, row.stream]), new Date(row.last)]));
}

/**
 * Reads the loader's facts for the page: run `runId` (default the latest that worked on streams),
 * its slices, and every configured or loaded (account, stream) with its settled-through date, held
 * and failed windows, rejects and freshness as of `now`.
 */
export async function readNightFacts(
  db: Kysely<Database>,
  options: {
    readonly now: number;
    readonly runId?: number;
    readonly configured?: readonly { readonly account: string; readonly stream: string }[];
    readonly tables?: readonly { readonly stream: string; readonly table: string }[];
    readonly trackedKinds?: readonly { readonly stream: string; readonly kind: string }[];
  },
): Promise<NightFacts> {
  const run = await readRun(db, options.runId);
  const windows = run === null ? [] : await readWindows(db, run.id);
  const recounts = run === null ? [] : await readRecounts(db, run.id);
  const schemaChanges = run === null ? [] : await listSchemaChanges(db, { firstRun: run.id });
  const statuses = await streamStatus(db, {
    configured: options.configured,
    tables: options.tables,
    trackedKinds: options.trackedKinds,
  });
  const reads = await lastReads(db);
  const streams = statuses.map((status) => {
    const lastReadAt = reads.get(JSON.stringify([status.account, status.stream])) ?? null;
    return { status, lastReadAt, freshness: freshnessOf(lastReadAt, options.now) };
  });
  return { run, windows, streams, recounts, schemaChanges };
}
