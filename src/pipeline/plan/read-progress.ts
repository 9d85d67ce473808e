/**
 * What planning needs to know about one (account, stream): the completed windows with their ends
 * (completion is judged by coverage), the windows re-opened after they settled, and the first window a nightly `run` ever attempted, which
 * anchors the default start date. Backfills are left out of the anchor: an explicit range must
 * never drag the nightly start back.
 */
import type { Kysely } from "kysely";
import type { DateWindow } from "../../core/slices.js";
import type { Database } from "../../warehouse/connection/database.js";

/** A window that was settled and is open again (a re-count that differed, a held read). */
export interface ReopenedWindow extends DateWindow {
  /** The re-count found fewer rows on the platform than in the warehouse. */
  readonly fewerOnPlatform: boolean;
}

/** Completed windows, those re-opened after settling, and the first window a `run` touched. */
export interface StreamProgress {
  readonly completed: readonly DateWindow[];
  readonly reopened: readonly ReopenedWindow[];
  readonly firstRunWindow: string | undefined;
}

/** Reads the progress of one (account, stream). */
export async function readStreamProgress(
  db: Kysely<Database>,
  account: string,
  stream: string,
): Promise<StreamProgress> {
  const completed = await db
    .selectFrom("etl.stream_state")
    .select(["window_start", "window_end"])
    .where("account", "=", account)
    .where("stream", "=", stream)
    .orderBy("window_start")
    .execute();
  const first = await db
    .selectFrom("etl.run_slices as s")
    .innerJoin("etl.runs as r", "r.id", "s.run_id")
    .select((eb) => eb.fn.min("s.window_start").as("first"))
    .where("s.account", "=", account)
    .where("s.stream", "=", stream)
    .where("r.command", "=", "run")
    .executeTakeFirst();
  const reopened = await db
    .selectFrom("etl.reopened_windows")
    .select(["window_start", "window_end", "fewer_on_platform"])
    .where("account", "=", account)
    .where("stream", "=", stream)
    .orderBy("window_start")
    .execute();
  return {
    completed: completed.map((row) => ({ start: row.window_start, end: row.window_end })),
    reopened: reopened.map((row) => ({
      start: row.window_start,
      end: row.window_end,
      fewerOnPlatform: row.fewer_on_platform,
    })),
    firstRunWindow: (first?.first as string | null | undefined) ?? undefined,
  };
}
