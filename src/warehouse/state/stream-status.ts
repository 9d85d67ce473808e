import { type Kysely, sql } from "kysely";
import type { DateWindow } from "../../core/slices.js";
import { addDays } from "../../core/utc-days.js";
import type { Database, SliceStatus } from "../connection/database.js";
import { quoteTable } from "../connection/sql-names.js";
import { shownCommand } from "./dbt-run-record.js";
import { trackedCounts } from "./lookup-candidates.js";
import { REPLAY_RUN_COMMAND } from "./run-records.js";

/** The latest attempt at a slice that is not completed. */
export interface WindowAttempt {
  /** Slice label: `2026-08-01..2026-08-02`, or `full` for a full-refresh stream. */
  readonly slice: string;
  readonly start: string | null;
  readonly end: string | null;
  readonly status: SliceStatus;
  readonly error: string | null;
  readonly runId: number;
  readonly at: Date;
}

/**
 * Where one stream of one account stands, for `status`. "Completed" windows are settled ones: read
 * at least the stream's settle hours after their end, final; every other window may still change.
 */
export interface StreamStatus {
  readonly account: string;
  readonly stream: string;
  readonly completedWindows: number;
  /** Start of the earliest completed (settled) window. */
  readonly firstCompleted: string | null;
  /** Last day (inclusive) of the contiguous run of settled windows that starts at the earliest: "settled through". */
  readonly completedThrough: string | null;
  /** Last day (inclusive) of the latest completed window. */
  readonly lastCompleted: string | null;
  /** Date ranges between completed windows that are not completed, oldest first. */
  readonly gaps: readonly DateWindow[];
  /** Slices attempted but not completed (e.g. today's window), latest attempt each, oldest first. */
  readonly openWindows: readonly WindowAttempt[];
  /** The open slices whose latest attempt loaded them, not yet settled: every run reads them again. */
  readonly unsettledWindows: readonly WindowAttempt[];
  /** The open slices whose latest attempt loaded them but rejected too many rows (held open). */
  readonly heldWindows: readonly WindowAttempt[];
  /** The open slices whose latest attempt failed, with its error. */
  readonly failedWindows: readonly WindowAttempt[];
  /**
   * The latest run that worked on this stream, and how the stream ended in it (`streamStatus`,
   * `errors`; null for runs recorded before etl.run_streams existed). A run whose process died
   * without recording its end shows `abandoned` once a later command noticed (see
   * abandoned-runs.ts); its `finishedAt` is then its last sign of life.
   */
  readonly lastRun: {
    readonly runId: number;
    readonly command: string;
    readonly status: string;
    readonly startedAt: Date;
    readonly finishedAt: Date | null;
    readonly host: string;
    readonly pid: number | null;
    readonly streamStatus: string | null;
    readonly errors: readonly string[];
  } | null;
  /** Rows of this account in the stream's landing table. */
  readonly rows: number;
  /** Rejects not replayed yet, and all rejects ever stored. */
  readonly rejectsPending: number;
  readonly rejectsTotal: number;
  /** A lookup stream's tracked ids by state (`{ pending: 12, final: 340, none: 25 }`); empty for other streams. */
  readonly tracked: Readonly<Record<string, number>>;
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

/** Which streams `streamStatus` describes besides what the warehouse holds, and how to count their rows. */
export interface StreamStatusOptions {
  /** The landing table of each stream, to count its rows per account (none counted without). */
  readonly tables?: readonly { readonly stream: string; readonly table: string }[];
  readonly configured?: readonly { readonly account: string; readonly stream: string }[];
  /** The kind each lookup stream tracks its ids under in etl.tracked_requests. */
  readonly trackedKinds?: readonly { readonly stream: string; readonly kind: string }[];
}

/** The statuses being gathered, one per (account, stream), made on first mention. */
class StatusBoard {
  readonly #byKey = new Map<string, Mutable>();

  /** The status of (account, stream), empty until something is added to it. */
  entry(account: string, stream: string): Mutable {
    const key = JSON.stringify([account, stream]);
    let found = this.#byKey.get(key);
    if (!found) {
      found = emptyStatus(account, stream);
      this.#byKey.set(key, found);
    }
    return found;
  }

  /** Every status, its windows in slice order, sorted by account then stream. */
  sorted(): StreamStatus[] {
    const bySlice = (a: WindowAttempt, b: WindowAttempt) =>
      a.slice < b.slice ? -1 : a.slice > b.slice ? 1 : 0;
    return [...this.#byKey.values()]
      .map((s) => ({
        ...s,
        openWindows: s.openWindows.toSorted(bySlice),
        unsettledWindows: s.unsettledWindows.toSorted(bySlice),
        heldWindows: s.heldWindows.toSorted(bySlice),
        failedWindows: s.failedWindows.toSorted(bySlice),
      }))
      .sort((a, b) =>
        a.account === b.account ? (a.stream < b.stream ? -1 : 1) : a.account < b.account ? -1 : 1,
      );
  }
}

function emptyStatus(account: string, stream: string): Mutable {
  return {
    account,
    stream,
    completedWindows: 0,
    firstCompleted: null,
    completedThrough: null,
    lastCompleted: null,
    gaps: [],
    openWindows: [],
    unsettledWindows: [],
    heldWindows: [],
    failedWindows: [],
    lastRun: null,
    rows: 0,
    rejectsPending: 0,
    rejectsTotal: 0,
    tracked: {},
  };
}

/**
 * Per (account, stream) configured (`configured`) or seen anywhere in the warehouse: settled-through
 * date, gaps, unsettled, held and failed windows with their latest attempt, last run, landing-table
 * row count and rejects.
 */
export async function streamStatus(
  db: Kysely<Database>,
  options: StreamStatusOptions = {},
): Promise<StreamStatus[]> {
  const board = new StatusBoard();
  for (const pair of options.configured ?? []) board.entry(pair.account, pair.stream);
  const completedStarts = await addCompletedWindows(db, board);
  await addOpenAttempts(db, board, completedStarts);
  await addLastRuns(db, board);
  await addCounts(db, board, options);
  return board.sorted();
}

/** Each stream's completed (settled) windows summarised; returns the completed windows' `[account, stream, start]` keys. */
async function addCompletedWindows(db: Kysely<Database>, board: StatusBoard): Promise<Set<string>> {
  const state = await db
    .selectFrom("etl.stream_state")
    .select(["account", "stream", "window_start", "window_end"])
    .execute();
  const completed = new Map<Mutable, DateWindow[]>();
  const completedStarts = new Set<string>();
  for (const row of state) {
    const target = board.entry(row.account, row.stream);
    const windows = completed.get(target) ?? [];
    windows.push({ start: row.window_start, end: row.window_end });
    completed.set(target, windows);
    completedStarts.add(JSON.stringify([row.account, row.stream, row.window_start]));
  }
  for (const [target, windows] of completed) {
    Object.assign(target, { completedWindows: windows.length, ...summariseWindows(windows) });
  }
  return completedStarts;
}

/**
 * Each window not completed, by its latest attempt: open, and failed, held or read but not settled
 * yet. A replay of rejects adds a few rows to a window; it is no attempt at the window, so it must
 * not hide the window's last real attempt (a failure, say).
 */
async function addOpenAttempts(
  db: Kysely<Database>,
  board: StatusBoard,
  completedStarts: ReadonlySet<string>,
) {
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
    const target = board.entry(row.account, row.stream);
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
    if (row.status === "held") target.heldWindows = [...target.heldWindows, attempt];
    if (row.status === "succeeded" && row.window_start !== null)
      target.unsettledWindows = [...target.unsettledWindows, attempt];
  }
}

/** The run columns a stream's last run is described by. */
const RUN_COLUMNS = [
  "r.id",
  "r.command",
  "r.dbt",
  "r.status",
  "r.started_at",
  "r.finished_at",
  "r.host",
  "r.pid",
] as const;

/**
 * The latest run per stream: from etl.run_streams (every run that planned the stream), else, for
 * runs recorded before that table existed, the latest run that recorded a slice of it.
 */
async function addLastRuns(db: Kysely<Database>, board: StatusBoard) {
  const planned = await db
    .selectFrom("etl.run_streams as p")
    .innerJoin("etl.runs as r", "r.id", "p.run_id")
    .distinctOn(["p.account", "p.stream"])
    .select(["p.account", "p.stream", "p.status as stream_status", "p.errors", ...RUN_COLUMNS])
    .orderBy("p.account")
    .orderBy("p.stream")
    .orderBy("p.run_id", "desc")
    .execute();
  const sliced = await db
    .selectFrom("etl.run_slices as s")
    .innerJoin("etl.runs as r", "r.id", "s.run_id")
    .distinctOn(["s.account", "s.stream"])
    .select(["s.account", "s.stream", ...RUN_COLUMNS])
    .orderBy("s.account")
    .orderBy("s.stream")
    .orderBy("s.run_id", "desc")
    .execute();
  const lastRuns = [
    ...sliced.map((row) => ({ ...row, stream_status: null as string | null, errors: [] as unknown })),
    ...planned,
  ];
  for (const row of lastRuns) {
    const target = board.entry(row.account, row.stream);
    if (target.lastRun !== null && target.lastRun.runId > row.id) continue;
    target.lastRun = {
      runId: row.id,
      command: shownCommand(row.command, row.dbt),
      status: row.status,
      startedAt: new Date(row.started_at),
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
      host: row.host,
      pid: row.pid,
      streamStatus: row.stream_status,
      errors: Array.isArray(row.errors) ? (row.errors as string[]) : [],
    };
  }
}

/** Each stream's landing-table rows per account, its rejects (pending and all) and a lookup stream's tracked ids by state. */
async function addCounts(db: Kysely<Database>, board: StatusBoard, options: StreamStatusOptions) {
  for (const { stream, table } of options.tables ?? []) {
    const counts = await sql<{ account: string; rows: number }>`
      SELECT _account AS account, count(*)::int AS rows FROM ${sql.raw(quoteTable(table))} GROUP BY 1`.execute(
      db,
    );
    for (const row of counts.rows) board.entry(row.account, stream).rows = row.rows;
  }
  const rejects = await db
    .selectFrom("etl.rejects")
    .select(["account", "stream"])
    .select(sql<number>`count(*) FILTER (WHERE replayed_at IS NULL)::int`.as("pending"))
    .select(sql<number>`count(*)::int`.as("total"))
    .groupBy(["account", "stream"])
    .execute();
  for (const row of rejects)
    Object.assign(board.entry(row.account, row.stream), {
      rejectsPending: row.pending,
      rejectsTotal: row.total,
    });
  const streamOfKind = new Map((options.trackedKinds ?? []).map((k) => [k.kind, k.stream]));
  for (const row of await trackedCounts(db)) {
    const stream = streamOfKind.get(row.kind);
    if (stream === undefined) continue;
    const target = board.entry(row.account, stream);
    target.tracked = { ...target.tracked, [row.status]: row.n };
  }
}
