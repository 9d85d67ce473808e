import type { CompiledQuery } from "kysely";
import type pg from "pg";
import { describeError, LockHeldError, SliceError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import { linearBackoff, type RetryLoopPolicy, retryLoop } from "../../core/retry.js";
import { type Slice, sliceLabel } from "../../core/slices.js";
import type { Warehouse } from "../connection/connect-warehouse.js";
import { isConnectionLoss } from "../connection/connection-loss.js";
import type { LandingTable, LoadRow } from "../connection/landing-table.js";
import { DEADLINE_GRACE_MS, watchStatements } from "../connection/statement-deadline.js";
import { type TrackedUpdate, trackedUpdatesQuery } from "../state/lookup-candidates.js";
import { markReplayedQuery, type RejectInput, syncRejectsQuery } from "../state/rejects.js";
import { type SliceStats, sliceRecordQuery } from "../state/slice-records.js";
import { completeWindowQuery, reopenWindowQuery, settledAgainQuery } from "../state/stream-state.js";
import { writeHistoryFromStage } from "./history-stage.js";
import { insertIntoNewWindow } from "./insert-new-window.js";
import { loadSlotsOf } from "./load-slots.js";
import {
  appendFromStage,
  deleteUnlistedRows,
  mergeStage,
  type RowProvenance,
  replaceWindowFromStage,
} from "./merge-stage.js";
import { ensureMonthPartitions, forgetKnownPartitions } from "./month-partitions.js";
import { replaceSetFromStage } from "./replace-stage.js";
import { type RunWrittenKeys, WrittenKeysStale } from "./run-written-keys.js";
import { stageRows } from "./stage-rows.js";

/** What a load needs of a stream: its name (for the records) and its landing table. */
export interface LoadTarget {
  readonly name: string;
  readonly table: LandingTable;
}

/** Everything one slice brings to the warehouse. */
export interface LoadSliceInput {
  readonly stream: LoadTarget;
  readonly account: string;
  readonly runId: number;
  /** When the slice was extracted (`_extracted_at` of its rows). */
  readonly extractedAt: Date;
  readonly slice: Slice;
  /** Validated rows, distinct by the table's key (or, without a key, by content): the pipeline de-duplicates them. */
  readonly rows: readonly LoadRow[];
  /** Rows that failed validation, stored in `etl.rejects`. */
  readonly rejects: readonly RejectInput[];
  readonly stats: SliceStats;
  /** Record the window as completed (never for today's window, a replay, or a full-refresh slice). */
  readonly completeWindow: boolean;
  /** Rejects these rows came from (replay): marked replayed in the same transaction. */
  readonly replayedRejectIds?: readonly number[];
  /**
   * `replace_window` streams: add the rows to their days without deleting the window's rows (a
   * replay of a few rejects, not a whole window). Never with `completeWindow`. Merge streams merge
   * either way.
   */
  readonly append?: boolean;
  /**
   * Merge streams: COPY straight into the landing table when the window holds no rows yet (default
   * true; the result is the same, only faster). False always merges through the stage.
   */
  readonly insertFastPath?: boolean;
  /**
   * How many of `rows` lie outside the slice's window by their window column, as the caller counted
   * them (the pipeline does, for its holds); undefined: counted here when it matters. A new window
   * with such rows merges through the stage (see insertIntoNewWindow).
   */
  readonly rowsOutsideWindow?: number;
  /**
   * The keys the run has written into the account's tables partitioned by month: a first load's
   * fast path probes only the rows it may have written under another window (see RunWrittenKeys).
   * Without it every row COPYed into a new window is probed.
   */
  readonly writtenKeys?: RunWrittenKeys;
  /**
   * The read looked wrong (too many rejects, a shrink, a drift, missing charges): nothing of the
   * window changes (no row written, deleted or replaced, no lookup state moved), only its rejects
   * are stored; its record says `held` with the reason and this message, and the window is opened
   * again if it had settled, so every run re-reads it until a read loads cleanly. Never with
   * `completeWindow`.
   */
  readonly held?: { readonly reason: string; readonly message: string };
  /**
   * The read is of a window that was settled (or re-opened after it settled): `hold` says whether
   * the stored rows it would delete must be held instead (a held read writes nothing, see `held`),
   * given how many it would delete and how many rows it rejected; `removeUnlisted` (merge streams)
   * also deletes the window's stored rows the read does not list. Never with `held`.
   */
  readonly settledWindow?: SettledWindowGuard;
  /**
   * Retention's horizon for this table (YYYY-MM-01): no month partition before it is created for
   * the window or the margin around its rows' dates, only for a row of such a month itself.
   */
  readonly keepsFrom?: string | undefined;
  /** Rows per data-quality check, recorded with the slice. */
  readonly quality?: Readonly<Record<string, number>>;
  /** When the read happened (recorded with a completion). */
  readonly readAt?: Date;
  /** Rows of the stream's child tables (a transcription's turns), written by key in the same transaction. */
  readonly children?: readonly { readonly stream: LoadTarget; readonly rows: readonly LoadRow[] }[];
  /** The new states of a lookup's ids, written with its rows (`etl.tracked_requests`). */
  readonly tracked?: { readonly kind: string; readonly updates: readonly TrackedUpdate[] };
  /**
   * Runs inside the transaction just before its commit and throws when the run no longer holds
   * the stream's lock (see StreamLocks.fence): a window is never written without its lock.
   */
  readonly fence?: (client: pg.PoolClient) => Promise<void>;
}

/** A hold of a read: why (`etl.run_slices.hold_reason`) and the one line the run reports. */
export interface LoadHold {
  readonly reason: string;
  readonly message: string;
}

/** How a read of a settled (or re-opened) window may delete stored rows; see LoadSliceInput.settledWindow. */
export interface SettledWindowGuard {
  readonly removeUnlisted: boolean;
  hold(counts: { readonly deleted: number; readonly rejected: number }): LoadHold | undefined;
}

/** The stored rows a read of a settled window would delete need confirmation: its transaction is undone, then recorded held. */
class DeletionHeld extends Error {
  constructor(readonly hold: LoadHold) {
    super(hold.message);
    this.name = "DeletionHeld";
  }
}

/** Default limit of one load statement (`load_statement_timeout_ms`): 5 minutes. */
export const DEFAULT_LOAD_STATEMENT_TIMEOUT_MS = 300_000;

/** How a load survives the database: new connections tried when one is lost or stalls mid-load. */
export interface LoadOptions {
  /** Attempts of the whole transaction when its connection is lost or a statement times out (default 3). */
  readonly maxAttempts?: number;
  /**
   * Longest a load statement (COPY, merge, the records) may run (default
   * {@link DEFAULT_LOAD_STATEMENT_TIMEOUT_MS}): the server's `statement_timeout` for the
   * transaction, and the loader closes a connection whose statement is still unanswered
   * {@link DEADLINE_GRACE_MS} later (a stalled COPY, a lost answer).
   */
  readonly statementTimeoutMs?: number;
  readonly log?: Logger;
  /** Waits between attempts (default a timer). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** What a slice load did to the landing table, plus what it set aside. */
export interface SliceLoadResult {
  readonly inserted: number;
  readonly updated: number;
  /** Distinct rows whose stored copy was already identical (merge streams). */
  readonly unchanged: number;
  /**
   * Stored rows the read deleted: a replaced window's or set's rows it no longer lists (by content
   * where rows have no id), a history key it no longer lists, a re-opened merge window's unlisted rows.
   */
  readonly deleted: number;
  readonly rejected: number;
  /** replace_window rows whose window column lies outside the slice's window: left to their own window. */
  readonly outsideWindow: number;
  /**
   * The read would have deleted stored rows of a settled window without confirmation: it was
   * recorded held instead (nothing written), and this is why.
   */
  readonly held?: LoadHold;
}

async function run(
  client: { query(text: string, values: unknown[]): Promise<unknown> },
  q: CompiledQuery | null,
) {
  if (q) await client.query(q.sql, [...q.parameters]);
}

/**
 * Writes the slice's distinct rows into the landing table the way its stream and the input ask
 * (see loadSlice); the counts it leaves out are zero.
 */
async function writeRows(
  client: pg.PoolClient,
  input: LoadSliceInput,
  target: LoadTarget,
  rows: readonly LoadRow[],
  provenance: RowProvenance,
): Promise<Partial<SliceLoadResult>> {
  const { slice } = input;
  const { table } = target;
  if (table.writeMode === "merge") {
    const writtenBefore = await input.writtenKeys?.rowsWrittenBefore(client, table, rows);
    if (input.insertFastPath !== false) {
      // A window without rows yet: nothing stored to delete either.
      const counts = await insertIntoNewWindow(client, table, provenance, {
        slice,
        rows,
        writtenBefore,
        outside: input.rowsOutsideWindow,
      });
      if (counts !== null) return counts;
    }
    const staged = await stageRows(client, table.columns, rows);
    const counts = await mergeStage(client, table, provenance);
    const deleted =
      input.settledWindow?.removeUnlisted === true && slice.kind === "window"
        ? await deleteUnlistedRows(client, table, provenance, slice.window)
        : 0;
    return { ...counts, deleted, unchanged: staged - counts.inserted - counts.updated };
  }
  if (table.writeMode === "replace_all" || table.writeMode === "replace_snapshot") {
    const staged = await stageRows(client, table.columns, rows);
    const counts = await replaceSetFromStage(client, table, provenance);
    return { ...counts, unchanged: staged - counts.inserted - counts.updated };
  }
  if (table.writeMode === "history") {
    const staged = await stageRows(client, table.columns, rows);
    const counts = await writeHistoryFromStage(client, table, provenance, input.readAt ?? input.extractedAt);
    return {
      inserted: counts.inserted,
      updated: counts.updated,
      deleted: counts.closed,
      unchanged: staged - counts.inserted - counts.updated,
    };
  }
  if (input.append === true) {
    await stageRows(client, table.columns, rows);
    return { inserted: await appendFromStage(client, table, provenance) };
  }
  const staged = await stageRows(client, table.columns, rows);
  const window = slice.kind === "window" ? slice.window : null;
  return replaceWindowFromStage(client, table, provenance, window, staged);
}

/**
 * Loads one slice in ONE transaction: COPY into a temporary stage, merge (or replace the window;
 * or, for a merge into a window that holds no rows yet, COPY straight into the landing table),
 * store the rejects, record the slice in `etl.run_slices` and, when `completeWindow`, mark the
 * window completed (a `held` read writes no row and opens its window again); the lock fence runs last. A failure anywhere rolls back all of it and throws a
 * SliceError. When the connection is lost mid-load (the server restarted or terminated it), the
 * whole transaction is tried again on a new connection, `maxAttempts` times at most. A read of a
 * settled window that would delete stored rows its guard does not let go (`settledWindow`) is
 * undone and loaded again as held: its result then says `held`.
 */
export async function loadSlice(
  warehouse: Warehouse,
  input: LoadSliceInput,
  options: LoadOptions = {},
): Promise<SliceLoadResult> {
  try {
    return await loadWithRetries(warehouse, input, options);
  } catch (error) {
    if (!(error instanceof DeletionHeld)) throw error;
    // Undone whole: recorded held, nothing of the window written, the window open again.
    const { settledWindow: _guard, ...rest } = input;
    const held = await loadWithRetries(
      warehouse,
      { ...rest, held: error.hold, completeWindow: false },
      options,
    );
    return { ...held, held: error.hold };
  }
}

/**
 * How a slice's load transaction is tried again, on a new connection: 3 attempts in all unless
 * {@link LoadOptions.maxAttempts} says otherwise, 250 ms more before each further one. Which failures
 * count depends on the attempt's connection as well as the error ({@link loadRetryReason}), so the
 * site adds its `retryable`.
 */
const LOAD_RETRY = {
  maxAttempts: 3,
  delayMs: linearBackoff({ stepMs: 250 }),
} as const satisfies Omit<RetryLoopPolicy, "retryable">;

/** {@link loadSlice}'s transaction, tried again on a new connection when one is lost or stalls. */
async function loadWithRetries(
  warehouse: Warehouse,
  input: LoadSliceInput,
  options: LoadOptions,
): Promise<SliceLoadResult> {
  const { stream, slice } = input;
  if (input.append === true && input.completeWindow) {
    // Appended rows are a few rows, not a whole window: they can never prove a window complete.
    throw new Error(`an append to ${sliceLabel(slice)} of stream ${stream.name} cannot complete the window`);
  }
  if (input.held !== undefined && input.completeWindow) {
    throw new Error(`a held window ${sliceLabel(slice)} of stream ${stream.name} cannot be completed`);
  }
  const timeoutMs = options.statementTimeoutMs ?? DEFAULT_LOAD_STATEMENT_TIMEOUT_MS;
  let connection = { lost: false };
  const policy: RetryLoopPolicy = {
    ...LOAD_RETRY,
    maxAttempts: Math.max(1, options.maxAttempts ?? LOAD_RETRY.maxAttempts),
    retryable: (error) => loadRetryReason(error, connection) !== undefined,
  };
  const onNewConnection = () => {
    connection = { lost: false };
    return loadAttempt(warehouse, input, connection, timeoutMs);
  };
  try {
    return await retryLoop(onNewConnection, policy, {
      sleep: options.sleep,
      onRetry: ({ attempt, error }) =>
        options.log?.warn(
          {
            account: input.account,
            // The name only: the definition (columns, schema) is kilobytes of noise in a log line.
            stream: stream.name,
            slice: sliceLabel(slice),
            attempt,
            error: describeError(error),
          },
          loadRetryReason(error, connection),
        ),
    });
  } catch (error) {
    if (error instanceof DeletionHeld) throw error;
    throw new SliceError(
      `loading ${sliceLabel(slice)} of stream ${stream.name} for account ${input.account} failed: ${describeError(error)}`,
      {
        account: input.account,
        stream: stream.name,
        ...(slice.kind === "window" ? { window: sliceLabel(slice) } : {}),
      },
      { cause: error },
    );
  }
}

/**
 * One attempt of the load transaction (its month partitions first, unless the read is held) on
 * `connection`. A month this process took for existing that was retired meanwhile (by another
 * process's retention) is forgotten, so the next attempt creates it.
 */
async function loadAttempt(
  warehouse: Warehouse,
  input: LoadSliceInput,
  connection: { lost: boolean },
  timeoutMs: number,
): Promise<SliceLoadResult> {
  const { stream, slice } = input;
  try {
    return await loadSlotsOf(warehouse.pool)(async () => {
      if (input.held !== undefined) return loadOnce(warehouse, input, connection, timeoutMs);
      const table = await ensureMonthPartitions(
        warehouse.pool,
        stream.table,
        slice,
        input.rows,
        input.keepsFrom,
      );
      return loadOnce(warehouse, { ...input, stream: { ...stream, table } }, connection, timeoutMs);
    });
  } catch (error) {
    if (isMissingPartition(error)) forgetKnownPartitions(warehouse.pool);
    throw error;
  }
}

/**
 * Why a failed load attempt is worth another on a new connection, as its warning says it;
 * undefined when it is not (a wrong statement, a lock another run holds, a deletion held).
 */
function loadRetryReason(error: unknown, connection: { lost: boolean }): string | undefined {
  if (error instanceof DeletionHeld || error instanceof LockHeldError) return undefined;
  if (error instanceof WrittenKeysStale)
    return "the run's locks were taken again during the load; loading the slice again, probing every row for a moved key";
  if (isStatementTimeout(error))
    return "a load statement timed out; loading the slice again on a new connection";
  if (isMissingPartition(error))
    return "a month partition the load needs is gone (retired by retention); creating it and loading the slice again";
  if (isConnectionLoss(error, connection))
    return "the warehouse connection was lost while loading; loading the slice again on a new connection";
  return undefined;
}

/** A load statement that ran past its limit: ended by the server (57014) or by the loader closing its connection. */
export class LoadStatementTimeoutError extends Error {
  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(
      `a load statement did not finish within ${timeoutMs} ms (load_statement_timeout_ms); its connection was closed`,
      options,
    );
    this.name = "LoadStatementTimeoutError";
  }
}

/** True when a load statement ran past its limit (the server's statement_timeout, or the loader's deadline). */
export function isStatementTimeout(error: unknown): boolean {
  if (error instanceof LoadStatementTimeoutError) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === "57014" && typeof message === "string" && /statement timeout/i.test(message);
}

/** True when a row found no partition of its table (23514 from partition routing): its month is gone. */
export function isMissingPartition(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === "23514" && typeof message === "string" && /no partition of relation/.test(message);
}

/** SQLSTATE classes and codes that mean the connection is gone, not that the statement was wrong. */
/**
 * The rows of a slice (and its children's) written in the open transaction, unless the read is
 * held; a deletion of a settled window's rows its guard does not let go throws DeletionHeld.
 */
async function writeSlice(
  client: pg.PoolClient,
  input: LoadSliceInput,
  provenance: RowProvenance,
): Promise<SliceLoadResult> {
  const held = input.held !== undefined;
  const written = held ? {} : await writeRows(client, input, input.stream, input.rows, provenance);
  const deletionHold = input.settledWindow?.hold({
    deleted: written.deleted ?? 0,
    rejected: input.rejects.length,
  });
  if (deletionHold !== undefined) throw new DeletionHeld(deletionHold);
  for (const child of held ? [] : (input.children ?? [])) {
    // A child table's rows are written by key; the parent's window guard is not theirs.
    const asChild = { ...input, insertFastPath: false, settledWindow: undefined };
    await writeRows(client, asChild, child.stream, child.rows, provenance);
  }
  return { ...writtenNothing(input), ...written, rejected: input.rejects.length };
}

/**
 * What the open transaction records of a written slice: its rejects (not for a replay's append;
 * a replay's own rejects were marked replayed before it wrote), a lookup's new states, the slice's
 * record, and the window completed, or opened again when the read is held.
 */
async function recordSlice(
  client: pg.PoolClient,
  warehouse: Warehouse,
  input: LoadSliceInput,
  result: SliceLoadResult,
): Promise<void> {
  const { slice } = input;
  const identity = { runId: input.runId, account: input.account, stream: input.stream.name, slice };
  // A replay appends rows it re-validated; it is not a read of the window, so it leaves the window's rejects alone.
  if (input.append !== true) {
    await run(client, syncRejectsQuery(warehouse.db, { ...identity, rejects: input.rejects }));
  }
  if (input.tracked !== undefined && input.held === undefined) {
    const { kind, updates } = input.tracked;
    await run(
      client,
      trackedUpdatesQuery(warehouse.db, { kind, account: input.account, at: input.extractedAt, updates }),
    );
  }
  const completes = input.completeWindow && slice.kind === "window";
  await run(
    client,
    sliceRecordQuery(warehouse.db, identity, {
      status: input.held === undefined ? "succeeded" : "held",
      stats: input.stats,
      counts: result,
      ...(input.held === undefined ? {} : { error: input.held.message, holdReason: input.held.reason }),
      ...(input.quality === undefined ? {} : { quality: input.quality }),
      settled: completes,
    }),
  );
  if (completes) {
    await run(
      client,
      completeWindowQuery(warehouse.db, { ...identity, window: slice.window, readAt: input.readAt }),
    );
    await run(client, settledAgainQuery(warehouse.db, { ...identity, window: slice.window }));
  }
  if (input.held !== undefined && slice.kind === "window") {
    await run(
      client,
      reopenWindowQuery(warehouse.db, { ...identity, window: slice.window, reason: input.held.reason }),
    );
  }
}

/**
 * A replay marks its rejects replayed first, in its transaction, and writes only when it marked
 * every one: when none is left to mark, an earlier attempt of this load committed (its COMMIT's
 * answer was lost, and the load was tried again) and its rows are in, so writing them again would
 * append them twice; when only some are, another process replayed the others meanwhile, and the
 * load stops with nothing written.
 */
async function claimReplayedRejects(
  client: pg.PoolClient,
  warehouse: Warehouse,
  input: LoadSliceInput,
): Promise<"claimed" | "loaded before"> {
  const ids = input.replayedRejectIds ?? [];
  const query = markReplayedQuery(warehouse.db, ids);
  if (query === null) return "claimed";
  const marked = (await client.query(query.sql, [...query.parameters])).rowCount ?? 0;
  if (marked === ids.length) return "claimed";
  if (marked === 0) return "loaded before";
  throw new Error(
    `${ids.length - marked} of the ${ids.length} rejects this replay loads were replayed by another process meanwhile: nothing was written; run rejects replay again`,
  );
}

/** The counts of a load that wrote nothing: a replay whose rows were in already, and what a written slice's counts start from. */
function writtenNothing(input: LoadSliceInput): SliceLoadResult {
  return {
    inserted: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    outsideWindow: 0,
    rejected: input.rejects.length,
  };
}

/** One attempt of {@link loadSlice} on one connection. */
async function loadOnce(
  warehouse: Warehouse,
  input: LoadSliceInput,
  connection: { lost: boolean },
  timeoutMs: number,
): Promise<SliceLoadResult> {
  const provenance = { account: input.account, runId: input.runId, extractedAt: input.extractedAt };
  const client = await warehouse.pool.connect();
  const deadline = watchStatements(client, timeoutMs + DEADLINE_GRACE_MS);
  // A connection the server drops while it is checked out must not become an unhandled 'error' event.
  const onError = () => {
    connection.lost = true;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    // Dates compare with timestamps at UTC midnight, whatever the server's time zone.
    await client.query("SET LOCAL TimeZone = 'UTC'");
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
    const result =
      (await claimReplayedRejects(client, warehouse, input)) === "loaded before"
        ? writtenNothing(input)
        : await writeSlice(client, input, provenance);
    await recordSlice(client, warehouse, input, result);
    await input.fence?.(client);
    input.writtenKeys?.confirmNarrowed(client);
    await client.query("COMMIT");
    deadline.release();
    client.off("error", onError);
    client.release();
    return result;
  } catch (error) {
    input.writtenKeys?.forgetNarrowed(client);
    const rolledBack = deadline.expired
      ? false
      : await client.query("ROLLBACK").then(
          () => true,
          () => false,
        );
    deadline.release();
    client.off("error", onError);
    client.release(!rolledBack || connection.lost);
    throw deadline.expired ? new LoadStatementTimeoutError(timeoutMs, { cause: error }) : error;
  }
}
