import { type Kysely, sql } from "kysely";
import type { Database } from "./database.js";

/** Statuses a run may end with (the CHECK of `etl.runs.status`, besides `running`). */
export const RUN_STATUSES = [
  "running",
  "succeeded",
  "failed",
  "partial",
  "quarantined",
  "interrupted",
] as const;
/** Status of an `etl.runs` row. */
export type RunStatus = (typeof RUN_STATUSES)[number];

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
  return row.id;
}

/** Records how run `runId` ended. */
export async function finishRun(
  db: Kysely<Database>,
  runId: number,
  outcome: { status: Exclude<RunStatus, "running">; exitCode: number },
): Promise<void> {
  await db
    .updateTable("etl.runs")
    .set({ status: outcome.status, exit_code: outcome.exitCode, finished_at: sql<Date>`now()` })
    .where("id", "=", runId)
    .execute();
}
