import type { CompiledQuery } from "kysely";
import type pg from "pg";
import { describeError, SliceError } from "../errors.js";
import { collapseRows } from "../streams/collapse-rows.js";
import type { LoadRow } from "../streams/load-row.js";
import { sliceLabel } from "../streams/slice-label.js";
import type { Slice, StreamDefinition } from "../streams/stream-definition.js";
import type { Warehouse } from "./connect-warehouse.js";
import { insertIntoNewWindow } from "./insert-new-window.js";
import { appendFromStage, mergeStage, type RowProvenance, replaceWindowFromStage } from "./merge-stage.js";
import { markReplayedQuery, type RejectInput, syncRejectsQuery } from "./rejects.js";
import { type SliceStats, sliceRecordQuery } from "./slice-records.js";
import { stageRows } from "./stage-rows.js";
import { completeWindowQuery } from "./stream-state.js";

/** Everything one slice brings to the warehouse. */
export interface LoadSliceInput {
  readonly stream: StreamDefinition;
  readonly account: string;
  readonly runId: number;
  /** When the slice was extracted (`_extracted_at` of its rows). */
  readonly extractedAt: Date;
  readonly slice: Slice;
  /** Validated rows; the same key may appear more than once (the last one wins). */
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
}

/** What a slice load did to the landing table, plus what it set aside. */
export interface SliceLoadResult {
  readonly inserted: number;
  readonly updated: number;
  /** Distinct rows whose stored copy was already identical (merge streams). */
  readonly unchanged: number;
  /** Rows removed before the insert (replace_window streams). */
  readonly deleted: number;
  readonly rejected: number;
  /** Rows dropped because the same key (or, without a key, the same content) came again. */
  readonly duplicates: number;
  /** replace_window rows whose window column lies outside the slice's window: left to their own window. */
  readonly outsideWindow: number;
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
  provenance: RowProvenance,
  rows: readonly LoadRow[],
): Promise<Partial<SliceLoadResult>> {
  const { stream, slice } = input;
  if (stream.writeMode === "merge") {
    if (input.insertFastPath !== false) {
      const inserted = await insertIntoNewWindow(client, stream, provenance, slice, rows);
      if (inserted !== null) return { inserted };
    }
    const staged = await stageRows(client, stream.columns, rows);
    const counts = await mergeStage(client, stream, provenance);
    return { ...counts, unchanged: staged - counts.inserted - counts.updated };
  }
  if (input.append === true) {
    await stageRows(client, stream.columns, rows);
    return { inserted: await appendFromStage(client, stream, provenance) };
  }
  const staged = await stageRows(client, stream.columns, rows);
  const window = slice.kind === "window" ? slice.window : null;
  return replaceWindowFromStage(client, stream, provenance, window, staged);
}

/**
 * Loads one slice in ONE transaction: COPY into a temporary stage, merge (or replace the window;
 * or, for a merge into a window that holds no rows yet, COPY straight into the landing table),
 * store the rejects, record the slice in `etl.run_slices` and, when `completeWindow`, mark the
 * window completed. A failure anywhere rolls back all of it and throws a SliceError.
 */
export async function loadSlice(warehouse: Warehouse, input: LoadSliceInput): Promise<SliceLoadResult> {
  const { stream, slice } = input;
  if (input.append === true && input.completeWindow) {
    // Appended rows are a few rows, not a whole window: they can never prove a window complete.
    throw new Error(`an append to ${sliceLabel(slice)} of stream ${stream.name} cannot complete the window`);
  }
  const { rows, duplicates } = collapseRows(stream, input.rows);
  const provenance = { account: input.account, runId: input.runId, extractedAt: input.extractedAt };
  const client = await warehouse.pool.connect();
  let clientBroken = false;
  try {
    await client.query("BEGIN");
    // Dates compare with timestamps at UTC midnight, whatever the server's time zone.
    await client.query("SET LOCAL TimeZone = 'UTC'");
    const written = await writeRows(client, input, provenance, rows);
    const result: SliceLoadResult = {
      inserted: 0,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      outsideWindow: 0,
      ...written,
      rejected: input.rejects.length,
      duplicates,
    };
    const identity = { runId: input.runId, account: input.account, stream: stream.name, slice };
    // A replay appends rows it re-validated; it is not a read of the window, so it leaves the window's rejects alone.
    if (input.append !== true) {
      await run(client, syncRejectsQuery(warehouse.db, { ...identity, rejects: input.rejects }));
    }
    await run(client, markReplayedQuery(warehouse.db, input.replayedRejectIds ?? []));
    await run(
      client,
      sliceRecordQuery(warehouse.db, identity, { status: "succeeded", stats: input.stats, counts: result }),
    );
    if (input.completeWindow && slice.kind === "window") {
      await run(client, completeWindowQuery(warehouse.db, { ...identity, window: slice.window }));
    }
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {
      clientBroken = true;
    });
    throw new SliceError(
      `loading ${sliceLabel(slice)} of stream ${stream.name} for account ${input.account} failed: ${describeError(error)}`,
      {
        account: input.account,
        stream: stream.name,
        ...(slice.kind === "window" ? { window: sliceLabel(slice) } : {}),
      },
      { cause: error },
    );
  } finally {
    client.release(clientBroken);
  }
}
