import type { Kysely } from "kysely";
import type { Database } from "../connection/database.js";
import type { RecountRecord } from "./window-counts.js";

/** One (account, stream) a run planned, as recorded at its start. */
export interface PlannedStream {
  readonly account: string;
  readonly stream: string;
  readonly windowsPlanned: number;
  readonly apiRevision: string | null;
}

/** How one (account, stream) ended in a run, as recorded at its end. */
export interface FinishedStream {
  readonly account: string;
  readonly stream: string;
  readonly status: string;
  readonly windowsPlanned: number;
  readonly windowsLoaded: number;
  readonly windowsCompleted: number;
  readonly windowsFailed: number;
  readonly windowsHeld: number;
  readonly requests: number;
  readonly rowsFetched: number;
  readonly inserted: number;
  readonly updated: number;
  /** Stored rows the stream's reads deleted. */
  readonly deleted: number;
  readonly rejected: number;
  readonly quality: Readonly<Record<string, number>>;
  readonly errors: readonly string[];
  /** What the run's re-count of the stream's settled windows did; null when none ran. */
  readonly recount: RecountRecord | null;
}

/** Records every (account, stream) a run is about to work on, status `running` (those recorded already are kept). */
export async function recordPlannedStreams(
  db: Kysely<Database>,
  runId: number,
  planned: readonly PlannedStream[],
): Promise<void> {
  if (planned.length === 0) return;
  await db
    .insertInto("etl.run_streams")
    .values(
      planned.map((p) => ({
        run_id: runId,
        account: p.account,
        stream: p.stream,
        status: "running",
        api_revision: p.apiRevision,
        windows_planned: p.windowsPlanned,
      })),
    )
    // A repeat after a lost connection (the coordinator rides out a warehouse restart) records nothing twice.
    .onConflict((conflict) => conflict.columns(["run_id", "account", "stream"]).doNothing())
    .execute();
}

/** Records how each (account, stream) of a run ended. */
export async function recordFinishedStreams(
  db: Kysely<Database>,
  runId: number,
  finished: readonly FinishedStream[],
): Promise<void> {
  for (const f of finished) {
    await db
      .updateTable("etl.run_streams")
      .set({
        status: f.status,
        windows_planned: f.windowsPlanned,
        windows_loaded: f.windowsLoaded,
        windows_completed: f.windowsCompleted,
        windows_failed: f.windowsFailed,
        windows_held: f.windowsHeld,
        requests: f.requests,
        rows_fetched: f.rowsFetched,
        rows_inserted: f.inserted,
        rows_updated: f.updated,
        rows_deleted: f.deleted,
        rows_rejected: f.rejected,
        quality: Object.keys(f.quality).length > 0 ? JSON.stringify(f.quality) : null,
        errors: JSON.stringify(f.errors),
        recount: f.recount === null ? null : JSON.stringify(f.recount),
      })
      .where("run_id", "=", runId)
      .where("account", "=", f.account)
      .where("stream", "=", f.stream)
      .execute();
  }
}
