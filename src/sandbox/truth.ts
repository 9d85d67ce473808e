import type { CdrType } from "../platform/cdr.js";
import type { RowIdentity } from "./faults/row-faults.js";
import { isValidRow, ROW_CHANGE_NAMES, serveRow } from "./faults/served-row.js";
import { selectMessages } from "./message-query.js";
import { selectRecordings } from "./recording-query.js";
import { selectInvoiceRows } from "./routes/invoice-routes.js";
import type { ListStream } from "./routes/page-body.js";
import { selectShortLinkRows } from "./routes/short-link-routes.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { appendJsonField, formatCdrDate } from "./serialize-cdr.js";
import { serializeMessage } from "./serialize-message.js";
import type { TruthQuery } from "./truth-query.js";
import { RECORD_STREAMS, type RecordStream, recordTruthLines, visibleCalls } from "./truth-records.js";
import { SNAPSHOT_STREAMS, type SnapshotStream, snapshotLines } from "./truth-snapshots.js";

export type { TruthQuery } from "./truth-query.js";

/** List streams: served through paginated lists, with row faults and drift. */
const LIST_STREAMS = [
  "cdrs",
  "short_link_metrics",
  "invoices",
  "messages",
  "recordings",
] as const satisfies ListStream[];

/** Streams the truth export knows (`number_catalog` takes a country instead of an account, see admin routes). */
export const TRUTH_STREAMS = [
  ...LIST_STREAMS,
  ...RECORD_STREAMS,
  ...SNAPSHOT_STREAMS,
  "number_catalog",
] as const;
/** A truth stream. */
export type TruthStream = (typeof TRUTH_STREAMS)[number];

const isListStream = (stream: TruthStream): stream is ListStream =>
  (LIST_STREAMS as readonly string[]).includes(stream);
const isRecordStream = (stream: TruthStream): stream is RecordStream =>
  (RECORD_STREAMS as readonly string[]).includes(stream);

interface StreamRow {
  readonly json: string;
  readonly identity: RowIdentity;
  readonly direction: CdrType | null;
}

/** Every record of a list stream visible now, as generated (before row faults). */
function streamRows(runtime: SandboxRuntime, stream: ListStream, query: TruthQuery): StreamRow[] {
  const nowMs = runtime.clock.now();
  const account = query.account.index;
  const context = { runtime, account: query.account };
  const of = (json: string, day: number, index: number, direction: CdrType | null = null): StreamRow => ({
    json,
    identity: { stream, account, day, index },
    direction,
  });
  switch (stream) {
    case "short_link_metrics":
      return selectShortLinkRows(context, query.fromMs, query.toMs, nowMs, null, null).map((r) =>
        of(r.json, r.day, r.index),
      );
    case "invoices":
      return selectInvoiceRows(context, nowMs)
        .filter((r) => r.day * DAY_MS >= query.fromMs && r.day * DAY_MS <= query.toMs)
        .map((r) => of(r.json, r.day, r.index));
    case "messages": {
      const filter = {
        account: query.account,
        direction: null,
        fromMs: query.fromMs,
        untilMs: query.toMs + DAY_MS,
        from: null,
        to: null,
        tag: null,
        status: null,
        type: null,
      };
      return selectMessages(runtime, filter, nowMs).map(({ message, day }) =>
        of(serializeMessage(message, nowMs), day, message.index),
      );
    }
    case "recordings":
      return selectRecordings(runtime, query.account, query.fromMs, query.toMs + DAY_MS, nowMs).map((r) =>
        of(r.json, r.day, r.index),
      );
    case "cdrs":
      return visibleCalls(runtime, query).map((call) =>
        of(runtime.cdrs.serialize(call), Math.floor(call.startMs / DAY_MS), call.index, call.direction),
      );
  }
}

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
  if (!isListStream(stream)) return snapshotLines(runtime, stream as SnapshotStream, query.account);
  const { faults } = runtime;
  const alters = faults.altersRows(stream);
  const lines: string[] = [];
  for (const row of streamRows(runtime, stream, query)) {
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
  for (const row of streamRows(runtime, stream, query)) {
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
