import { type CompiledQuery, type Kysely, sql } from "kysely";
import type { DateWindow } from "../../core/slices.js";
import type { Database } from "../connection/database.js";

export { type StreamStatus, streamStatus, type WindowAttempt } from "./stream-status.js";

/** Starts (`YYYY-MM-DD`) of the windows of (account, stream) that are completed. */
export async function completedWindows(
  db: Kysely<Database>,
  account: string,
  stream: string,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom("etl.stream_state")
    .select("window_start")
    .where("account", "=", account)
    .where("stream", "=", stream)
    .execute();
  return new Set(rows.map((row) => row.window_start));
}

/**
 * The upsert marking `window` of (account, stream) completed by `runId`, compiled for a transaction's
 * client. Completion only ever grows: completing a shorter window at a start already recorded (a
 * backfill clipped at `--to` with `window_days` > 1) leaves the longer window, its run and its time
 * as they were, because every day of the shorter window is covered already. Only `state reset`
 * removes completion.
 */
export function completeWindowQuery(
  db: Kysely<Database>,
  input: { account: string; stream: string; window: DateWindow; runId: number; readAt?: Date },
): CompiledQuery {
  return db
    .insertInto("etl.stream_state")
    .values({
      account: input.account,
      stream: input.stream,
      window_start: input.window.start,
      window_end: input.window.end,
      run_id: input.runId,
      read_at: input.readAt ?? null,
    })
    .onConflict((oc) =>
      oc
        .columns(["account", "stream", "window_start"])
        .doUpdateSet({
          window_end: (eb) => eb.ref("excluded.window_end"),
          completed_at: sql`now()`,
          run_id: (eb) => eb.ref("excluded.run_id"),
          read_at: (eb) => eb.ref("excluded.read_at"),
        })
        .where((eb) => eb(eb.ref("excluded.window_end"), ">=", eb.ref("etl.stream_state.window_end"))),
    )
    .compile();
}

/**
 * The statement opening again every completed window of (account, stream) that overlaps `window`,
 * compiled for a transaction's client: a held read of a window must be re-read by every run until
 * it loads cleanly, and a re-count that differs re-reads it, whether or not the window had settled
 * before. A longer completed window (another `window_days`) is opened whole; re-reading its other
 * days changes nothing. Each settled window it opens is remembered in `etl.reopened_windows`
 * (`reason`: `recount` or the hold's reason) until a read settles it again: until then it keeps
 * the guard of a settled window (any deletion of its rows needs `--accept-shrink`).
 */
export function reopenWindowQuery(
  db: Kysely<Database>,
  input: {
    account: string;
    stream: string;
    window: DateWindow;
    runId: number;
    reason: string;
    /** The re-count found fewer rows on the platform than in the warehouse. */
    fewerOnPlatform?: boolean;
  },
): CompiledQuery {
  return sql`
    WITH reopened AS (
      DELETE FROM etl.stream_state
      WHERE account = ${input.account} AND stream = ${input.stream}
        AND window_start < ${input.window.end}::date AND window_end > ${input.window.start}::date
      RETURNING account, stream, window_start, window_end
    )
    INSERT INTO etl.reopened_windows (account, stream, window_start, window_end, reason, fewer_on_platform, run_id)
    SELECT account, stream, window_start, window_end, ${input.reason}, ${input.fewerOnPlatform === true}, ${input.runId}
    FROM reopened
    ON CONFLICT (account, stream, window_start) DO UPDATE
      SET window_end = excluded.window_end, reason = excluded.reason,
          fewer_on_platform = excluded.fewer_on_platform, run_id = excluded.run_id, reopened_at = now()`.compile(
    db,
  );
}

/**
 * The delete forgetting the re-opened windows (account, stream) that `window` covers, compiled for
 * the transaction of the read that settles `window` again.
 */
export function settledAgainQuery(
  db: Kysely<Database>,
  input: { account: string; stream: string; window: DateWindow },
): CompiledQuery {
  return db
    .deleteFrom("etl.reopened_windows")
    .where("account", "=", input.account)
    .where("stream", "=", input.stream)
    .where("window_start", ">=", input.window.start)
    .where("window_end", "<=", input.window.end)
    .compile();
}

/**
 * Forgets completed windows of `streams` (of `accounts` when given; those ending after `from` when
 * given), so the next run loads them again, and that any of them was settled before (their
 * re-opened entries). Returns how many completed windows were forgotten.
 */
export async function resetStreamState(
  db: Kysely<Database>,
  options: { streams: readonly string[]; accounts?: readonly string[]; from?: string },
): Promise<number> {
  if (options.streams.length === 0) return 0;
  if (options.accounts?.length === 0) return 0;
  return db.transaction().execute(async (tx) => {
    const forget = (table: "etl.stream_state" | "etl.reopened_windows") => {
      let query = tx.deleteFrom(table).where("stream", "in", options.streams);
      if (options.accounts) query = query.where("account", "in", options.accounts);
      if (options.from) query = query.where("window_end", ">", options.from);
      return query.executeTakeFirst();
    };
    await forget("etl.reopened_windows");
    return Number((await forget("etl.stream_state")).numDeletedRows);
  });
}

/** Accounts with completed windows of any of `streams` (of any stream when absent), sorted. */
export async function accountsWithState(
  db: Kysely<Database>,
  streams?: readonly string[],
): Promise<string[]> {
  let query = db.selectFrom("etl.stream_state").select("account").distinct();
  if (streams !== undefined) {
    if (streams.length === 0) return [];
    query = query.where("stream", "in", streams);
  }
  const rows = await query.orderBy("account").execute();
  return rows.map((row) => row.account);
}
