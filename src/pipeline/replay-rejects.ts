/**
 * `rejects replay`: re-validates quarantined rows with the current schemas and loads those that
 * now pass, slice by slice, each in one transaction that also marks them replayed. Window
 * completion is never touched. Rows that still fail stay pending. Merge streams merge the rows by
 * key; replace_window streams (rows without ids) append them to their days beside the rows already
 * there, and the next normal load of such a window replaces all of it with what the platform serves.
 */
import { describeError } from "../errors.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import type { Logger } from "../log.js";
import { type Clock, systemClock } from "../ports.js";
import type { LoadRow } from "../streams/load-row.js";
import { getStream } from "../streams/registry.js";
import { parseSliceLabel } from "../streams/slice-label.js";
import { sweepAbandonedRuns } from "../warehouse/abandoned-runs.js";
import type { Warehouse } from "../warehouse/connect-warehouse.js";
import { loadSlice } from "../warehouse/load-slice.js";
import { impliedOfReject, pendingRejects, type RejectRecord } from "../warehouse/rejects.js";
import { finishRun, REPLAY_RUN_COMMAND, startRun } from "../warehouse/run-records.js";
import { acquireStreamLocks } from "../warehouse/stream-locks.js";
import { parseRow } from "./parse-rows.js";

/** What a replay did per (account, stream). */
export interface ReplaySummary {
  readonly account: string;
  readonly stream: string;
  readonly pending: number;
  readonly loaded: number;
  readonly stillRejected: number;
}

/** Replays pending rejects (of one stream when given); returns the run id and per-stream figures. */
export async function replayRejects(
  deps: {
    warehouse: Warehouse;
    log: Logger;
    host: string;
    pid?: number;
    lockTimeoutMs?: number;
    /** Stamps each replayed slice's `_extracted_at` and start (default: the system clock). */
    clock?: Clock;
  },
  options: { stream?: string; account?: string },
): Promise<{ runId: number; summaries: ReplaySummary[] }> {
  if (options.stream !== undefined) getStream(options.stream);
  const pending = await pendingRejects(deps.warehouse.db, options);
  // One load per (account, stream, slice), in the order pending rejects come.
  const groups = new Map<
    string,
    { account: string; streamName: string; label: string; rejects: RejectRecord[] }
  >();
  for (const reject of pending) {
    const key = JSON.stringify([reject.account, reject.stream, reject.slice]);
    const group = groups.get(key);
    if (group === undefined)
      groups.set(key, {
        account: reject.account,
        streamName: reject.stream,
        label: reject.slice,
        rejects: [reject],
      });
    else group.rejects.push(reject);
  }
  const runId = await startRun(deps.warehouse.db, {
    command: REPLAY_RUN_COMMAND,
    arguments: { stream: options.stream ?? null, account: options.account ?? null },
    host: deps.host,
    pid: deps.pid ?? process.pid,
  });
  await sweepAbandonedRuns(deps.warehouse.db, { host: deps.host, pid: deps.pid, log: deps.log });
  const pairs = [
    ...new Map(
      pending.map((r) => [`${r.account}/${r.stream}`, { account: r.account, stream: r.stream }]),
    ).values(),
  ];
  const locks = await acquireStreamLocks(deps.warehouse, pairs, {
    timeoutMs: deps.lockTimeoutMs ?? 0,
    runId,
  }).catch(async (error: unknown) => {
    await finishRun(deps.warehouse.db, runId, { status: "failed", exitCode: exitCodeFor(error) });
    throw error;
  });
  const summaries = new Map<string, { -readonly [K in keyof ReplaySummary]: ReplaySummary[K] }>();
  let failed = false;
  try {
    for (const { account, streamName, label, rejects } of groups.values()) {
      const summary = summaries.get(`${account}/${streamName}`) ?? {
        account,
        stream: streamName,
        pending: 0,
        loaded: 0,
        stillRejected: 0,
      };
      summaries.set(`${account}/${streamName}`, summary);
      summary.pending += rejects.length;
      const stream = getStream(streamName);
      const rows: LoadRow[] = [];
      const ids: number[] = [];
      for (const reject of rejects) {
        const parsed = parseRow(stream, reject.raw, impliedOfReject(reject));
        if (parsed.ok) {
          rows.push(parsed.row);
          ids.push(reject.id);
        }
      }
      summary.stillRejected += rejects.length - ids.length;
      if (ids.length === 0) continue;
      const startedAt = new Date((deps.clock ?? systemClock).now());
      try {
        await loadSlice(deps.warehouse, {
          stream,
          account,
          runId,
          extractedAt: startedAt,
          slice: parseSliceLabel(label),
          rows,
          rejects: [],
          stats: { requests: 0, retries: 0, rowsFetched: rows.length, startedAt },
          completeWindow: false,
          replayedRejectIds: ids,
          // replace_window streams: add the rows beside the window's good ones, never replace them.
          append: true,
        });
        summary.loaded += ids.length;
      } catch (error) {
        failed = true;
        summary.stillRejected += ids.length;
        deps.log.error(
          { account, stream: streamName, slice: label, error: describeError(error) },
          "replay failed",
        );
      }
    }
    const all = [...summaries.values()];
    const exitCode = failed
      ? EXIT.workFailed
      : all.some((s) => s.stillRejected > 0)
        ? EXIT.quarantined
        : EXIT.ok;
    await finishRun(deps.warehouse.db, runId, {
      status: failed ? "partial" : exitCode === EXIT.quarantined ? "quarantined" : "succeeded",
      exitCode,
    });
    return { runId, summaries: all };
  } finally {
    await locks.release();
  }
}
