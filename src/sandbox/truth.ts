import { isValidRow, ROW_CHANGE_NAMES, serveRow } from "./faults/served-row.js";
import { isListStream, LIST_STREAMS, type ListStream } from "./list-streams.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { appendJsonField, formatCdrDate } from "./serialize-cdr.js";
import { transactionTruthLines } from "./truth-ledger.js";
import { listRows } from "./truth-lists.js";
import type { TruthQuery } from "./truth-query.js";
import { RECORD_STREAMS, type RecordStream, recordTruthLines } from "./truth-records.js";
import { SNAPSHOT_STREAMS, type SnapshotStream, snapshotLines } from "./truth-snapshots.js";

export type { TruthQuery } from "./truth-query.js";

/**
 * Streams the truth export knows: the list streams (`LIST_STREAMS`), the record and snapshot
 * streams, the ledger, and `number_catalog` (which takes a country instead of an account, see
 * admin routes).
 */
export const TRUTH_STREAMS: readonly TruthStream[] = [
  ...LIST_STREAMS,
  ...RECORD_STREAMS,
  ...SNAPSHOT_STREAMS,
  "number_catalog",
  "transactions",
];
/** A truth stream. */
export type TruthStream = ListStream | RecordStream | SnapshotStream | "number_catalog" | "transactions";

const isRecordStream = (stream: TruthStream): stream is RecordStream =>
  (RECORD_STREAMS as readonly string[]).includes(stream);

/**
 * The JSON lines a perfect loader holds for `stream` at the current clock.
 *
 * List streams: every visible record byte for byte as the API serves it now (rows changed by the
 * fault profile included when they stay valid for the platform's schema: extra fields, null
 * charges, harmless drift), without the rows the profile makes invalid. Recordings are placed in
 * the range by `created_at` (the end of their call), as the list does. CDR lines carry an extra
 * `direction` (`placed`/`received`); messages carry their own `direction`, and a message's line
 * is its state now (status, charge, delivered_at as listed at the clock). Record and snapshot
 * streams: see truth-records.ts and truth-snapshots.ts. Order is not meaningful.
 */
export function truthLines(
  runtime: SandboxRuntime,
  stream: Exclude<TruthStream, "number_catalog">,
  query: TruthQuery,
): string[] {
  if (isRecordStream(stream)) return recordTruthLines(runtime, stream, query);
  if (stream === "transactions") return transactionTruthLines(runtime, query);
  if (!isListStream(stream)) return snapshotLines(runtime, stream as SnapshotStream, query.account);
  const { faults } = runtime;
  const alters = faults.altersRows(stream);
  const lines: string[] = [];
  for (const row of listRows(runtime, stream, query)) {
    let json = row.json;
    if (alters) {
      const served = serveRow(faults.profile, faults.seed, row.identity, json);
      if (served.change !== null && !isValidRow(stream, served.fields)) continue;
      json = served.json;
    }
    lines.push(row.direction ? appendJsonField(json, "direction", row.direction) : json);
  }
  return lines;
}

/**
 * The rows the active fault profile changes, visible now in the range: `{stream, kind, rejected,
 * direction (CDRs), raw}` where `raw` is the row exactly as served and `rejected` says whether it
 * fails the platform's schema (then it must end up in the loader's rejects; else it is valid and in
 * the truth). Kinds: the row faults, `null_charge`, `drift` (a row both corrupted and drifted is
 * listed once, under its corruption). Only list streams have row faults.
 */
export function malformedLines(runtime: SandboxRuntime, stream: TruthStream, query: TruthQuery): string[] {
  const { faults } = runtime;
  if (!isListStream(stream) || !faults.altersRows(stream)) return [];
  const lines: string[] = [];
  for (const row of listRows(runtime, stream, query)) {
    const served = serveRow(faults.profile, faults.seed, row.identity, row.json);
    if (served.change === null) continue;
    const rejected = !isValidRow(stream, served.fields);
    const direction = row.direction ? `"direction":"${row.direction}",` : "";
    lines.push(
      `{"stream":"${stream}","kind":"${ROW_CHANGE_NAMES[served.change]}","rejected":${rejected},${direction}"raw":${served.json}}`,
    );
  }
  return lines;
}

/**
 * CDRs of the range that arrive late (visible 1 h to 48 h after the call), visible yet or not:
 * the generated JSON plus `direction`, `visible_at` and `visible` (at the current clock).
 */
export function lateCdrLines(runtime: SandboxRuntime, query: TruthQuery): string[] {
  const nowMs = runtime.clock.now();
  const lines: string[] = [];
  for (let day = query.fromMs / DAY_MS; day <= query.toMs / DAY_MS; day++) {
    if (runtime.cdrs.isEmpty(query.account, day)) continue;
    for (const call of runtime.cdrs.calls(query.account, day)) {
      if (!call.late) continue;
      let line = appendJsonField(runtime.cdrs.serialize(call), "direction", call.direction);
      line = appendJsonField(line, "visible_at", formatCdrDate(call.visibleAtMs));
      lines.push(appendJsonField(line, "visible", call.visibleAtMs <= nowMs));
    }
  }
  return lines;
}
