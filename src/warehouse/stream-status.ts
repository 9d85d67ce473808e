import { type Kysely, sql } from "kysely";
import { STREAMS } from "../streams/registry.js";
import type { DateWindow, StreamDefinition } from "../streams/stream-definition.js";
import { addDays } from "../utc-days.js";
import type { Database } from "./database.js";
import { REPLAY_RUN_COMMAND } from "./run-records.js";
import { quoteTable } from "./sql-names.js";

/** The latest attempt at a slice that is not completed. */
export interface WindowAttempt {
  /** Slice label: `2026-08-01..2026-08-02`, or `full` for a full-refresh stream. */
  readonly slice: string;
  readonly start: string | null;
  readonly end: string | null;
  readonly status: "succeeded" | "failed" | "skipped";
  readonly error: string | null;
  readonly runId: number;
  readonly at: Date;
}

/** Where one stream of one account stands, for `status`. */
export interface StreamStatus {
  readonly account: string;
  readonly stream: string;
  readonly completedWindows: number;
  /** Start of the earliest completed window. */
  readonly firstCompleted: string | null;
  /** Last day (inclusive) of the contiguous run of completed windows that starts at the earliest. */
  readonly completedThrough: string | null;
  /** Last day (inclusive) of the latest completed window. */
  readonly lastCompleted: string | null;
  /** Date ranges between completed windows that are not completed, oldest first. */
  readonly gaps: readonly DateWindow[];
  /** Slices attempted but not completed (e.g. today's window), latest attempt each, oldest first. */
  readonly openWindows: readonly WindowAttempt[];
  /** The open slices whose latest attempt failed, with its error. */
  readonly failedWindows: readonly WindowAttempt[];
  /**
   * The latest run that recorded a slice of this stream. A run whose process died without recording
   * its end shows `abandoned` once a later command noticed (see abandoned-runs.ts); its `finishedAt`
   * is then its last sign of life.
   */
  readonly lastRun: {
    readonly runId: number;
    readonly command: string;
    readonly status: string;
    readonly startedAt: Date;
    readonly finishedAt: Date | null;
    readonly host: string;
    readonly pid: number | null;
  } | null;
  /** Rows of this account in the stream's landing table. */
  readonly rows: number;
  /** Rejects not replayed yet, and all rejects ever stored. */
  readonly rejectsPending: number;
  readonly rejectsTotal: number;
}

type Mutable = { -readonly [K in keyof StreamStatus]: StreamStatus[K] };

function summariseWindows(windows: readonly DateWindow[]) {
  const sorted = [...windows].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const gaps: DateWindow[] = [];
  let contiguousEnd: string | null = null;
  let reach: string | null = null;
  for (const window of sorted) {
    if (reach !== null && window.start > reach) gaps.push({ start: reach, end: window.start });
    if (reach === null || window.start <= reach) {
      if (gaps.length === 0) contiguousEnd = reach === null || window.end > reach ? window.end : reach;
    }
    if (reach === null || window.end > reach) reach = window.end;
  }
  return {
    firstCompleted: sorted[0]?.start ?? null,
    completedThrough: contiguousEnd === null ? null : addDays(contiguousEnd, -1),
    lastCompleted: reach === null ? null : addDays(reach, -1),
    gaps,
  };
}

/**
 * Per (account, stream) seen anywhere in the warehouse: completed-through date, gaps, open and
 * failed windows with their last errors, last run, landing-table row count and rejects.
 */
export async function streamStatus(
  db: Kysely<Database>,
  streams: readonly StreamDefinition[] = Object.values(STREAMS),
): Promise<StreamStatus[]> {
  const byKey = new Map<string, Mutable>();
  const entry = (account: string, stream: string): Mutable => {
    const key = JSON.stringify([account, stream]);
    let found = byKey.get(key);
    if (!found) {
      found = {
        account,
        stream,
        completedWindows: 0,
        firstCompleted: null,
        completedThrough: null,
        lastCompleted: null,
        gaps: [],
        openWindows: [],
        failedWindows: [],
        lastRun: null,
        rows: 0,
        rejectsPending: 0,
        rejectsTotal: 0,
      };
      byKey.set(key, found);
    }
    return found;
  };

  const state = await db
    .selectFrom("etl.stream_state")
    .select(["account", "stream", "window_start", "window_end"])
    .execute();
  const completed = new Map<Mutable, DateWindow[]>();
  const completedStarts = new Set<string>();
  for (const row of state) {
    const target = entry(row.account, row.stream);
    const windows = completed.get(target) ?? [];
    windows.push({ start: row.window_start, end: row.window_end });
    completed.set(target, windows);
    completedStarts.add(JSON.stringify([row.account, row.stream, row.window_start]));
  }
  for (const [target, windows] of completed) {
    Object.assign(target, { completedWindows: windows.length, ...summariseWindows(windows) });
  }

  // A replay of rejects adds a few rows to a window; it is no attempt at the window, so it must not
  // hide the window's last real attempt (a failure, say).
  const attempts = await db
    .selectFrom("etl.run_slices as s")
    .innerJoin("etl.runs as r", "r.id", "s.run_id")
    .where("r.command", "!=", REPLAY_RUN_COMMAND)
    .distinctOn(["s.account", "s.stream", "s.slice"])
    .select([
      "s.account",
      "s.stream",
      "s.slice",
      "s.window_start",
      "s.window_end",
      "s.status",
      "s.error",
      "s.run_id",
      "s.finished_at",
    ])
    .orderBy("s.account")
    .orderBy("s.stream")
    .orderBy("s.slice")
    .orderBy("s.id", "desc")
    .execute();
  for (const row of attempts) {
    const isCompleted =
      row.window_start !== null &&
      completedStarts.has(JSON.stringify([row.account, row.stream, row.window_start]));
    if (isCompleted || (row.window_start === null && row.status === "succeeded")) continue;
    const target = entry(row.account, row.stream);
    const attempt: WindowAttempt = {
      slice: row.slice,
      start: row.window_start,
      end: row.window_end,
      status: row.status,
      error: row.error,
      runId: row.run_id,
      at: new Date(row.finished_at),
    };
    target.openWindows = [...target.openWindows, attempt];
    if (row.status === "failed") target.failedWindows = [...target.failedWindows, attempt];
  }

  const lastRuns = await db
    .selectFrom("etl.run_slices as s")
    .innerJoin("etl.runs as r", "r.id", "s.run_id")
    .distinctOn(["s.account", "s.stream"])
    .select([
      "s.account",
      "s.stream",
      "r.id",
      "r.command",
      "r.status",
      "r.started_at",
      "r.finished_at",
      "r.host",
      "r.pid",
    ])
    .orderBy("s.account")
    .orderBy("s.stream")
    .orderBy("s.run_id", "desc")
    .execute();
  for (const row of lastRuns) {
    entry(row.account, row.stream).lastRun = {
      runId: row.id,
      command: row.command,
      status: row.status,
      startedAt: new Date(row.started_at),
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
      host: row.host,
      pid: row.pid,
    };
  }

  for (const stream of streams) {
    const counts = await sql<{ account: string; rows: number }>`
      SELECT _account AS account, count(*)::int AS rows FROM ${sql.raw(quoteTable(stream.table))} GROUP BY 1`.execute(
      db,
    );
    for (const row of counts.rows) entry(row.account, stream.name).rows = row.rows;
  }

  const rejects = await db
    .selectFrom("etl.rejects")
    .select(["account", "stream"])
    .select(sql<number>`count(*) FILTER (WHERE replayed_at IS NULL)::int`.as("pending"))
    .select(sql<number>`count(*)::int`.as("total"))
    .groupBy(["account", "stream"])
    .execute();
  for (const row of rejects)
    Object.assign(entry(row.account, row.stream), { rejectsPending: row.pending, rejectsTotal: row.total });

  const sortByStart = (a: WindowAttempt, b: WindowAttempt) =>
    a.slice < b.slice ? -1 : a.slice > b.slice ? 1 : 0;
  return [...byKey.values()]
    .map((s) => ({
      ...s,
      openWindows: s.openWindows.toSorted(sortByStart),
      failedWindows: s.failedWindows.toSorted(sortByStart),
    }))
    .sort((a, b) =>
      a.account === b.account ? (a.stream < b.stream ? -1 : 1) : a.account < b.account ? -1 : 1,
    );
}
