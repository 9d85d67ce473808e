/**
 * The history of runs, read back from `etl.runs`, `etl.run_streams` and `etl.run_slices` for
 * `telecom-etl runs`, and the dbt steps a `nightly` adds to its run. A stream's figures are what
 * the run recorded at its end (`etl.run_streams`); for a run that never recorded its end (killed,
 * abandoned) they are summed from its windows (`etl.run_slices`, written with each window's load).
 * 429s and retries are always summed from the windows.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import type { Database } from "../connection/database.js";
import { type NightlyDbtRecord, shownCommand } from "./dbt-run-record.js";
import type { RecountRecord } from "./window-counts.js";

/** What one (account, stream) did in one run. */
export interface RunStreamFigures {
  readonly account: string;
  readonly stream: string;
  /** How the stream ended (`succeeded`, `failed`, …); `running`/`abandoned` when the run never recorded its end. */
  readonly status: string;
  readonly apiRevision: string | null;
  readonly windowsPlanned: number;
  readonly windowsLoaded: number;
  readonly windowsSettled: number;
  readonly windowsFailed: number;
  readonly windowsHeld: number;
  readonly requests: number;
  readonly retries: number;
  /** Requests the platform answered 429. */
  readonly throttled: number;
  readonly rowsFetched: number;
  readonly rowsInserted: number;
  readonly rowsUpdated: number;
  /** Stored rows the stream's reads deleted (see SliceLoadResult.deleted). */
  readonly rowsDeleted: number;
  readonly rowsRejected: number;
  readonly quality: Readonly<Record<string, number>>;
  readonly errors: readonly string[];
  /** What the run's re-count of the stream's settled windows did; null when none ran (or the run ended before recording it). */
  readonly recount: RecountRecord | null;
}

/** A window of a run that did not load cleanly (held with why, failed, or skipped), or whose read deleted stored rows. */
export interface RunWindowProblem {
  readonly account: string;
  readonly stream: string;
  readonly window: string;
  readonly status: string;
  readonly holdReason: string | null;
  readonly error: string | null;
  /** Stored rows the read deleted (the platform no longer lists them). */
  readonly rowsDeleted: number;
}

/** One run as `runs list` shows it, with its streams' figures. */
export interface RunRecord {
  readonly id: number;
  /** `nightly` for a nightly's run (its load is recorded as `run`), else the recorded command. */
  readonly command: string;
  readonly arguments: unknown;
  readonly status: string;
  /** The command's exit code: a nightly's (worst of its load and dbt steps), else the run's. */
  readonly exitCode: number | null;
  /** The load's own exit code (differs from `exitCode` for a nightly whose dbt steps failed). */
  readonly loadExitCode: number | null;
  readonly startedAt: Date;
  readonly finishedAt: Date | null;
  readonly host: string;
  readonly pid: number | null;
  readonly streams: readonly RunStreamFigures[];
  readonly dbt: NightlyDbtRecord | null;
  /**
   * What retention did after the load (`etl.runs.retired_partitions`): the months it retired
   * (`[]`: none was old enough), `{error, cutoff}` when it failed, null when it did not run.
   */
  readonly retiredPartitions: unknown;
  /** Fields not in the schema first seen by this run. */
  readonly newFields: number;
  /** Columns `schema_contract: evolve` added in this run (`etl.schema_changes`). */
  readonly newColumns: number;
}

/** Totals of a run's streams. */
export interface RunTotals {
  readonly windowsPlanned: number;
  readonly windowsLoaded: number;
  readonly windowsFailed: number;
  readonly windowsHeld: number;
  readonly requests: number;
  readonly throttled: number;
  readonly rowsFetched: number;
  readonly rowsInserted: number;
  readonly rowsUpdated: number;
  readonly rowsDeleted: number;
  readonly rowsRejected: number;
}

/** Sums of the figures of a run's streams. */
export function runTotals(run: Pick<RunRecord, "streams">): RunTotals {
  const sum = (pick: (s: RunStreamFigures) => number) => run.streams.reduce((n, s) => n + pick(s), 0);
  return {
    windowsPlanned: sum((s) => s.windowsPlanned),
    windowsLoaded: sum((s) => s.windowsLoaded),
    windowsFailed: sum((s) => s.windowsFailed),
    windowsHeld: sum((s) => s.windowsHeld),
    requests: sum((s) => s.requests),
    throttled: sum((s) => s.throttled),
    rowsFetched: sum((s) => s.rowsFetched),
    rowsInserted: sum((s) => s.rowsInserted),
    rowsUpdated: sum((s) => s.rowsUpdated),
    rowsDeleted: sum((s) => s.rowsDeleted),
    rowsRejected: sum((s) => s.rowsRejected),
  };
}

interface SliceSums {
  run_id: number;
  account: string;
  stream: string;
  windows: number;
  loaded: number;
  settled: number;
  failed: number;
  held: number;
  requests: number;
  retries: number;
  throttled: number;
  rows_fetched: number;
  rows_inserted: number;
  rows_updated: number;
  rows_deleted: number;
  rows_rejected: number;
}

/** The latest `limit` runs (newest first), or the runs `ids`. */
export async function readRuns(
  db: Kysely<Database>,
  which: { readonly limit: number } | { readonly ids: readonly number[] },
): Promise<RunRecord[]> {
  let query = db.selectFrom("etl.runs").selectAll().orderBy("id", "desc");
  query = "ids" in which ? query.where("id", "in", [...which.ids, -1]) : query.limit(which.limit);
  const runs = await query.execute();
  if (runs.length === 0) return [];
  const ids = runs.map((r) => Number(r.id));
  const streams = await db.selectFrom("etl.run_streams").selectAll().where("run_id", "in", ids).execute();
  const slices = await sliceSumsOf(db, ids);
  const fields = await sql<{ run_id: number; n: number }>`
    SELECT first_seen_run AS run_id, count(*)::int AS n FROM etl.unknown_fields
    WHERE first_seen_run = ANY(${ids}::bigint[]) GROUP BY first_seen_run`.execute(db);
  const columns = await sql<{ run_id: number; n: number }>`
    SELECT first_run AS run_id, count(*)::int AS n FROM etl.schema_changes
    WHERE first_run = ANY(${ids}::bigint[]) GROUP BY first_run`.execute(db);
  return runs.map((run) => {
    const id = Number(run.id);
    const ownSlices = slices.filter((s) => Number(s.run_id) === id);
    const byStream = new Map<string, RunStreamFigures>();
    for (const recorded of streams.filter((s) => Number(s.run_id) === id)) {
      const sums = ownSlices.find((s) => s.account === recorded.account && s.stream === recorded.stream);
      byStream.set(`${recorded.account}/${recorded.stream}`, recordedStreamFigures(recorded, sums));
    }
    // Runs without stream records (`rejects replay`, runs recorded before 0005): their windows alone.
    for (const sums of ownSlices) {
      const key = `${sums.account}/${sums.stream}`;
      if (!byStream.has(key)) byStream.set(key, slicesOnlyFigures(run.status, sums));
    }
    const dbt = (run.dbt ?? null) as NightlyDbtRecord | null;
    return {
      id,
      command: shownCommand(run.command, dbt),
      arguments: run.arguments,
      status: run.status,
      exitCode: dbt?.exitCode ?? run.exit_code,
      loadExitCode: run.exit_code,
      startedAt: new Date(run.started_at),
      finishedAt: run.finished_at === null ? null : new Date(run.finished_at),
      host: run.host,
      pid: run.pid,
      streams: [...byStream.values()].sort(
        (a, b) => a.account.localeCompare(b.account) || a.stream.localeCompare(b.stream),
      ),
      dbt,
      retiredPartitions: run.retired_partitions ?? null,
      newFields: fields.rows.find((f) => Number(f.run_id) === id)?.n ?? 0,
      newColumns: columns.rows.find((c) => Number(c.run_id) === id)?.n ?? 0,
    };
  });
}

/** The windows of the runs `ids` summed per run, account and stream. */
async function sliceSumsOf(db: Kysely<Database>, ids: readonly number[]): Promise<SliceSums[]> {
  const slices = await sql<SliceSums>`
    SELECT run_id, account, stream,
           count(*)::int AS windows,
           count(*) FILTER (WHERE status IN ('succeeded', 'held'))::int AS loaded,
           count(*) FILTER (WHERE settled)::int AS settled,
           count(*) FILTER (WHERE status = 'failed')::int AS failed,
           count(*) FILTER (WHERE status = 'held')::int AS held,
           sum(requests)::bigint AS requests, sum(retries)::bigint AS retries,
           sum(throttled)::bigint AS throttled, sum(rows_fetched)::bigint AS rows_fetched,
           sum(rows_inserted)::bigint AS rows_inserted, sum(rows_updated)::bigint AS rows_updated,
           sum(rows_deleted)::bigint AS rows_deleted, sum(rows_rejected)::bigint AS rows_rejected
    FROM etl.run_slices WHERE run_id = ANY(${ids}::bigint[])
    GROUP BY run_id, account, stream`.execute(db);
  return slices.rows;
}

/**
 * A stream's figures from its etl.run_streams record: as recorded once it ended, summed from its
 * windows while it runs (or was abandoned); retries and throttling always from the windows.
 */
function recordedStreamFigures(
  recorded: Selectable<Database["etl.run_streams"]>,
  sums: SliceSums | undefined,
): RunStreamFigures {
  const ended = recorded.status !== "running" && recorded.status !== "abandoned";
  const sum = (field: keyof SliceSums) => Number(sums?.[field] ?? 0);
  return {
    account: recorded.account,
    stream: recorded.stream,
    status: recorded.status,
    apiRevision: recorded.api_revision,
    windowsPlanned: recorded.windows_planned,
    windowsLoaded: ended ? recorded.windows_loaded : sum("loaded"),
    windowsSettled: ended ? recorded.windows_completed : sum("settled"),
    windowsFailed: ended ? recorded.windows_failed : sum("failed"),
    windowsHeld: ended ? recorded.windows_held : sum("held"),
    requests: ended ? recorded.requests : sum("requests"),
    retries: sum("retries"),
    throttled: sum("throttled"),
    rowsFetched: ended ? recorded.rows_fetched : sum("rows_fetched"),
    rowsInserted: ended ? recorded.rows_inserted : sum("rows_inserted"),
    rowsUpdated: ended ? recorded.rows_updated : sum("rows_updated"),
    rowsDeleted: ended ? recorded.rows_deleted : sum("rows_deleted"),
    rowsRejected: ended ? recorded.rows_rejected : sum("rows_rejected"),
    quality: (recorded.quality ?? {}) as Record<string, number>,
    errors: (recorded.errors ?? []) as string[],
    recount: (recorded.recount ?? null) as RecountRecord | null,
  };
}

/** A stream's figures from its windows alone (a run without stream records), with the run's status. */
function slicesOnlyFigures(status: RunStreamFigures["status"], sums: SliceSums): RunStreamFigures {
  return {
    account: sums.account,
    stream: sums.stream,
    status,
    apiRevision: null,
    windowsPlanned: sums.windows,
    windowsLoaded: sums.loaded,
    windowsSettled: sums.settled,
    windowsFailed: sums.failed,
    windowsHeld: sums.held,
    requests: Number(sums.requests),
    retries: Number(sums.retries),
    throttled: Number(sums.throttled),
    rowsFetched: Number(sums.rows_fetched),
    rowsInserted: Number(sums.rows_inserted),
    rowsUpdated: Number(sums.rows_updated),
    rowsDeleted: Number(sums.rows_deleted),
    rowsRejected: Number(sums.rows_rejected),
    quality: {},
    errors: [],
    recount: null,
  };
}

/**
 * Every run of the work units of distributed run `coordinatorRunId` (`arguments.unit_of_run`):
 * each attempt of each unit, whether it ended or was killed.
 */
export async function readUnitRuns(db: Kysely<Database>, coordinatorRunId: number): Promise<RunRecord[]> {
  const ids = await db
    .selectFrom("etl.runs")
    .select("id")
    .where(sql<string>`arguments->>'unit_of_run'`, "=", String(coordinatorRunId))
    .execute();
  return ids.length === 0 ? [] : readRuns(db, { ids: ids.map((r) => Number(r.id)) });
}

/** The windows of run `runId` that were held, failed or skipped, or whose read deleted stored rows, in window order. */
export async function runWindowProblems(db: Kysely<Database>, runId: number): Promise<RunWindowProblem[]> {
  const rows = await db
    .selectFrom("etl.run_slices")
    .select(["account", "stream", "slice", "status", "hold_reason", "error", "rows_deleted"])
    .where("run_id", "=", runId)
    .where((eb) => eb.or([eb("status", "in", ["held", "failed", "skipped"]), eb("rows_deleted", ">", 0)]))
    .orderBy("account")
    .orderBy("stream")
    .orderBy("slice")
    .execute();
  return rows.map((r) => ({
    account: r.account,
    stream: r.stream,
    window: r.slice,
    status: r.status,
    holdReason: r.hold_reason,
    error: r.error,
    rowsDeleted: r.rows_deleted,
  }));
}

/**
 * Records the dbt steps of a `nightly` and its final exit code on its run, and moves the run's end
 * to `endedAt` (the end of its dbt steps): a nightly's duration is its load's and its dbt steps'.
 */
export async function recordRunDbt(
  db: Kysely<Database>,
  runId: number,
  record: NightlyDbtRecord,
  endedAt: Date,
): Promise<void> {
  await db
    .updateTable("etl.runs")
    .set({
      dbt: JSON.stringify(record),
      finished_at: sql<Date>`greatest(coalesce(finished_at, ${endedAt}), ${endedAt})`,
    })
    .where("id", "=", runId)
    .execute();
}

/**
 * What a recorded run is called where it is shown (`status`, the night's page): `nightly 7` for a
 * nightly (its load and dbt steps), `run 7 (backfill)` for any other command.
 */
export function runLabel(command: string, runId: number): string {
  return command === "nightly" ? `nightly ${runId}` : `run ${runId} (${command})`;
}
