import { type Kysely, sql } from "kysely";
import type { Database } from "../connection/database.js";

/**
 * Statuses of `etl.runs` (its CHECK). A run records every one of them itself except `abandoned`,
 * which a later command sets when the run's process is gone without having recorded its end.
 */
export const RUN_STATUSES = [
  "running",
  "succeeded",
  "failed",
  "partial",
  "quarantined",
  "interrupted",
  "abandoned",
] as const;
/** Status of an `etl.runs` row. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The `etl.runs.command` of a rejects replay (it adds rows to windows without attempting them). */
export const REPLAY_RUN_COMMAND = "rejects replay";

/** Statuses a run records at its own end. */
export type FinishedRunStatus = Exclude<RunStatus, "running" | "abandoned">;

// Ids of the runs this process started. A `running` run recorded with this host and this pid that
// is not among them was started by an earlier process that had the same pid (pid 1 in a container
// restarted under the same hostname), so that process is gone.
const runsOfThisProcess = new Set<number>();

/** True when run `runId` was started by this process (through {@link startRun}). */
export function isRunOfThisProcess(runId: number): boolean {
  return runsOfThisProcess.has(runId);
}

/** What a run is, as recorded at its start. `arguments` must never hold a secret. */
export interface RunStart {
  readonly command: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly host: string;
  readonly pid: number;
}

/** Inserts the `etl.runs` row of a starting run (status `running`) and returns its id. */
export async function startRun(db: Kysely<Database>, run: RunStart): Promise<number> {
  const row = await db
    .insertInto("etl.runs")
    .values({
      command: run.command,
      arguments: JSON.stringify(run.arguments),
      host: run.host,
      pid: run.pid,
      status: "running",
      finished_at: null,
      exit_code: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  runsOfThisProcess.add(Number(row.id));
  return row.id;
}

/** Records how run `runId` ended. */
export async function finishRun(
  db: Kysely<Database>,
  runId: number,
  outcome: { status: FinishedRunStatus; exitCode: number },
): Promise<void> {
  await db
    .updateTable("etl.runs")
    .set({ status: outcome.status, exit_code: outcome.exitCode, finished_at: sql<Date>`now()` })
    .where("id", "=", runId)
    .execute();
}
