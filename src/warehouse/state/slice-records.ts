import { type CompiledQuery, type Kysely, sql } from "kysely";
import { describeError } from "../../core/errors.js";
import type { Slice } from "../../core/slices.js";
import { sliceLabel } from "../../core/slices.js";
import type { Warehouse } from "../connection/connect-warehouse.js";
import type { Database, SliceStatus } from "../connection/database.js";

/** What extracting a slice cost, as the pipeline measured it. */
export interface SliceStats {
  /** HTTP requests sent for the slice, retries included (what the platform's rate limit sees). */
  readonly requests: number;
  /** How many of those requests repeated one that failed (429, 5xx, network, timeout, bad body). */
  readonly retries: number;
  /** How many of those requests the platform answered 429 (throttled); 0 when not counted. */
  readonly throttled?: number;
  readonly rowsFetched: number;
  readonly startedAt: Date;
}

/** Rows a slice load wrote, for its `etl.run_slices` record. */
export interface SliceRowCounts {
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly deleted: number;
  readonly rejected: number;
}

/** The run, account, stream and slice a record is about. */
export interface SliceIdentity {
  readonly runId: number;
  readonly account: string;
  /** A stream definition or its name. */
  readonly stream: string | { readonly name: string };
  readonly slice: Slice;
}

/** The name of a stream given as a definition or a name. */
export function streamName(stream: string | { readonly name: string }): string {
  return typeof stream === "string" ? stream : stream.name;
}

/** The `INSERT INTO etl.run_slices` of one slice, compiled so it can run on a transaction's client. */
export function sliceRecordQuery(
  db: Kysely<Database>,
  identity: SliceIdentity,
  outcome: {
    status: SliceStatus;
    stats: SliceStats;
    counts?: SliceRowCounts;
    error?: string;
    /** Why a `held` read was held. */
    holdReason?: string;
    /** Rows per data-quality check; left out when empty. */
    quality?: Readonly<Record<string, number>>;
    /** The read completed its window. */
    settled?: boolean;
  },
): CompiledQuery {
  const { slice, stats, counts } = { ...identity, ...outcome };
  return db
    .insertInto("etl.run_slices")
    .values({
      run_id: identity.runId,
      account: identity.account,
      stream: streamName(identity.stream),
      slice: sliceLabel(slice),
      window_start: slice.kind === "window" ? slice.window.start : null,
      window_end: slice.kind === "window" ? slice.window.end : null,
      status: outcome.status,
      hold_reason: outcome.holdReason ?? null,
      requests: stats.requests,
      retries: stats.retries,
      throttled: stats.throttled ?? 0,
      rows_fetched: stats.rowsFetched,
      rows_inserted: counts?.inserted ?? 0,
      rows_updated: counts?.updated ?? 0,
      rows_unchanged: counts?.unchanged ?? 0,
      rows_deleted: counts?.deleted ?? 0,
      rows_rejected: counts?.rejected ?? 0,
      started_at: stats.startedAt,
      error: outcome.error ?? null,
      quality:
        outcome.quality !== undefined && Object.keys(outcome.quality).length > 0
          ? JSON.stringify(outcome.quality)
          : null,
      settled: outcome.settled ?? false,
    })
    .compile();
}

/**
 * Records a slice that could not be loaded (status `failed` with the error's message). Its window
 * stays open: stream state is not touched, so the next run retries it.
 */
export async function recordFailedSlice(
  warehouse: Warehouse,
  input: SliceIdentity & { readonly stats: SliceStats; readonly error: unknown },
): Promise<void> {
  const query = sliceRecordQuery(warehouse.db, input, {
    status: "failed",
    stats: input.stats,
    error: describeError(input.error),
  });
  await warehouse.db.executeQuery(query);
}

/**
 * The windows run `runId` loaded (status `succeeded`: written, not held or failed), its distributed
 * units' runs (`arguments.unit_of_run`) included, as `account/stream/start..end` keys.
 */
export async function windowsLoadedByRun(db: Kysely<Database>, runId: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom("etl.run_slices")
    .select(["account", "stream", "slice"])
    .where("status", "=", "succeeded")
    .where("window_start", "is not", null)
    .where((eb) =>
      eb.or([
        eb("run_id", "=", runId),
        eb(
          "run_id",
          "in",
          eb
            .selectFrom("etl.runs")
            .select("id")
            .where(sql<string>`arguments->>'unit_of_run'`, "=", String(runId)),
        ),
      ]),
    )
    .execute();
  return new Set(rows.map((r) => loadedWindowKey(r.account, r.stream, r.slice)));
}

/** The key {@link windowsLoadedByRun} gives a window of an (account, stream): `account/stream/label`. */
export function loadedWindowKey(account: string, stream: string, label: string): string {
  return `${account}/${stream}/${label}`;
}
