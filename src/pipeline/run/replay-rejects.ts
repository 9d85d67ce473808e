/**
 * `rejects replay`: re-validates quarantined rows with the current schemas and loads those that
 * now pass, slice by slice, each in one transaction that also marks them replayed. Window
 * completion is never touched. Rows that still fail stay pending. Merge streams merge the rows by
 * key; replace_window streams (rows without ids) append them to their days beside the rows already
 * there, and the next normal load of such a window replaces all of it with what the platform serves.
 */

import { parseJsonExact } from "@telecom-etl/platform/exact-number.js";
import { describeError } from "../../core/errors.js";
import { EXIT, type ExitCode } from "../../core/exit-codes.js";
import { KnownSecrets } from "../../core/known-secrets.js";
import type { Logger } from "../../core/log.js";
import { type Clock, systemClock } from "../../core/ports.js";
import { parseSliceLabel } from "../../core/slices.js";
import type { LoadRow } from "../../streams/load-row.js";
import { getStream } from "../../streams/registry.js";
import { rowIdentityOf } from "../../streams/row-identity.js";
import type { Warehouse } from "../../warehouse/connection/connect-warehouse.js";
import type { StreamLocks } from "../../warehouse/coordination/stream-locks.js";
import { loadSlice } from "../../warehouse/load/load-slice.js";
import { impliedOfReject, pendingRejects, type RejectRecord } from "../../warehouse/state/rejects.js";
import { REPLAY_RUN_COMMAND } from "../../warehouse/state/run-records.js";
import { parseRow } from "../extract/parse-rows.js";
import { TYPE_CONFLICT, UNKNOWN_FIELD } from "../extract/schema-contract.js";
import { withRecordedRun } from "./recorded-run.js";
import type { RunOutcome } from "./run-outcome.js";

/**
 * A reject of a schema contract that still stands: a row `freeze` refused for an unknown field,
 * or one whose value's type an evolved column does not take, while it still carries a field the
 * schema does not know (once the field is mapped in packages/platform/src/, it loads).
 */
function stillRefusedByContract(reject: RejectRecord, row: LoadRow): boolean {
  const first: unknown = Array.isArray(reject.issues) ? reject.issues[0] : undefined;
  const code = typeof first === "object" && first !== null ? (first as { code?: unknown }).code : undefined;
  return row.extra !== null && (code === UNKNOWN_FIELD || code === TYPE_CONFLICT);
}

/** What a replay did per (account, stream). */
export interface ReplaySummary {
  readonly account: string;
  readonly stream: string;
  readonly pending: number;
  readonly loaded: number;
  readonly stillRejected: number;
}

/** What a replay works with. */
export interface ReplayDeps {
  warehouse: Warehouse;
  log: Logger;
  host: string;
  pid?: number;
  lockTimeoutMs?: number;
  /** Stamps each replayed slice's `_extracted_at` and start (default: the system clock). */
  clock?: Clock;
  /** Secrets masked in what is stored (default: none known beyond the credential-named fields). */
  secrets?: KnownSecrets;
  /** Longest one load statement may run (default: loadSlice's). */
  statementTimeoutMs?: number;
}

/** The pending rejects of one (account, stream, slice): what one load replays. */
interface RejectGroup {
  readonly account: string;
  readonly streamName: string;
  readonly label: string;
  readonly rejects: RejectRecord[];
}

type MutableSummary = { -readonly [K in keyof ReplaySummary]: ReplaySummary[K] };

/** Replays pending rejects (of one stream when given); returns the run id and per-stream figures. */
export async function replayRejects(
  deps: ReplayDeps,
  options: { stream?: string; account?: string },
): Promise<{ runId: number; summaries: ReplaySummary[]; exitCode: ExitCode }> {
  if (options.stream !== undefined) getStream(options.stream);
  const pending = await pendingRejects(deps.warehouse.db, options);
  const secrets = deps.secrets ?? new KnownSecrets();
  const pairs = [
    ...new Map(
      pending.map((r) => [`${r.account}/${r.stream}`, { account: r.account, stream: r.stream }]),
    ).values(),
  ];
  return withRecordedRun(
    deps,
    {
      command: REPLAY_RUN_COMMAND,
      arguments: { stream: options.stream ?? null, account: options.account ?? null },
      locks: pairs,
      lockTimeoutMs: deps.lockTimeoutMs ?? 0,
    },
    async ({ runId, locks }) => {
      const summaries = new Map<string, MutableSummary>();
      let failed = false;
      for (const group of groupsOf(pending)) {
        if (locks.lost.aborted) break;
        const key = `${group.account}/${group.streamName}`;
        const summary = summaries.get(key) ?? emptySummary(group);
        summaries.set(key, summary);
        if (!(await replayGroup(deps, { runId, locks, secrets }, group, summary))) failed = true;
      }
      const all = [...summaries.values()];
      const outcome: RunOutcome = failed
        ? { exitCode: EXIT.workFailed, status: "partial" }
        : all.some((s) => s.stillRejected > 0)
          ? { exitCode: EXIT.quarantined, status: "quarantined" }
          : { exitCode: EXIT.ok, status: "succeeded" };
      return { result: { runId, summaries: all, exitCode: outcome.exitCode }, outcome };
    },
  );
}

/** One load per (account, stream, slice), in the order pending rejects come. */
function groupsOf(pending: readonly RejectRecord[]): RejectGroup[] {
  const groups = new Map<string, RejectGroup>();
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
  return [...groups.values()];
}

function emptySummary(group: RejectGroup): MutableSummary {
  return { account: group.account, stream: group.streamName, pending: 0, loaded: 0, stillRejected: 0 };
}

/**
 * Re-validates one group's rejects and loads those that pass (distinct by the stream's row
 * identity, as an extraction would make them: the latest wins), marking them replayed in the same
 * transaction; counts both in `summary`. False when the load failed (its rows stay pending).
 */
async function replayGroup(
  deps: ReplayDeps,
  run: { readonly runId: number; readonly locks: StreamLocks; readonly secrets: KnownSecrets },
  group: RejectGroup,
  summary: MutableSummary,
): Promise<boolean> {
  const { account, streamName, label, rejects } = group;
  summary.pending += rejects.length;
  const stream = getStream(streamName);
  const identity = rowIdentityOf(stream);
  const exactNumbers = stream.answer.kind === "pages" ? (stream.answer.exactNumbers ?? []) : [];
  const byIdentity = new Map<string, LoadRow>();
  const ids: number[] = [];
  for (const reject of rejects) {
    const implied = impliedOfReject(reject);
    // Exact numbers (a ledger's amounts) are read from the stored text, never through a float.
    const raw = exactNumbers.length > 0 ? parseJsonExact(reject.rawText, exactNumbers) : reject.raw;
    const parsed = parseRow(stream, raw, implied, run.secrets);
    if (parsed.ok && !stillRefusedByContract(reject, parsed.row)) {
      byIdentity.set(identity(raw, implied), parsed.row);
      ids.push(reject.id);
    }
  }
  const rows = [...byIdentity.values()];
  summary.stillRejected += rejects.length - ids.length;
  if (ids.length === 0) return true;
  const startedAt = new Date((deps.clock ?? systemClock).now());
  try {
    await loadSlice(
      deps.warehouse,
      {
        stream,
        account,
        runId: run.runId,
        extractedAt: startedAt,
        slice: parseSliceLabel(label),
        rows,
        rejects: [],
        stats: { requests: 0, retries: 0, rowsFetched: rows.length, startedAt },
        completeWindow: false,
        replayedRejectIds: ids,
        // replace_window streams: add the rows beside the window's good ones, never replace them.
        append: true,
        fence: (client) => run.locks.fence(client, { account, stream: streamName }),
      },
      { log: deps.log, statementTimeoutMs: deps.statementTimeoutMs },
    );
    summary.loaded += ids.length;
    return true;
  } catch (error) {
    summary.stillRejected += ids.length;
    deps.log.error(
      { account, stream: streamName, slice: label, error: describeError(error) },
      "replay failed",
    );
    return false;
  }
}
