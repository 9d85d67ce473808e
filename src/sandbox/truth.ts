import type { CdrType } from "../platform/cdr.js";
import type { RowFault } from "./faults/fault-profile.js";
import { corruptRow, isRejected, type RowIdentity, rowFaultOf } from "./faults/row-faults.js";
import type { CdrCall } from "./generate-cdr-day.js";
import { transcriptionOf } from "./generate-transcription.js";
import { validationResponse } from "./generate-validation.js";
import { selectInvoiceRows } from "./routes/invoice-routes.js";
import type { ListStream } from "./routes/page-body.js";
import { selectShortLinkRows } from "./routes/short-link-routes.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { appendJsonField, formatCdrDate, serializeCdr } from "./serialize-cdr.js";
import type { SandboxAccount } from "./world.js";

/** Streams the truth export knows. */
export const TRUTH_STREAMS = [
  "cdrs",
  "short_link_metrics",
  "invoices",
  "transcriptions",
  "validations",
  "recordings",
] as const;
/** A truth stream. */
export type TruthStream = (typeof TRUTH_STREAMS)[number];

/** A truth query: one account, inclusive UTC day range as epoch ms. */
export interface TruthQuery {
  readonly account: SandboxAccount;
  readonly fromMs: number;
  readonly toMs: number;
}

type RecordStream = "transcriptions" | "validations" | "recordings";

const isListStream = (stream: TruthStream): stream is ListStream =>
  stream === "cdrs" || stream === "short_link_metrics" || stream === "invoices";

interface StreamRow {
  readonly json: string;
  readonly identity: RowIdentity;
  readonly direction: CdrType | null;
}

/** Names of row faults in the admin API. */
const FAULT_NAMES: Record<RowFault, string> = {
  wrongType: "wrong_type",
  missingField: "missing_field",
  unknownEnum: "unknown_enum",
  extraField: "extra_field",
};

/** Every call of the range whose CDR is visible now (both directions, generated and API-started). */
function visibleCalls(runtime: SandboxRuntime, query: TruthQuery): CdrCall[] {
  const nowMs = runtime.clock.now();
  const calls: CdrCall[] = [];
  for (let day = query.fromMs / DAY_MS; day <= query.toMs / DAY_MS && day * DAY_MS <= nowMs; day++) {
    if (runtime.cdrs.isEmpty(query.account, day)) continue;
    for (const call of runtime.cdrs.calls(query.account, day))
      if (call.visibleAtMs <= nowMs) calls.push(call);
  }
  return calls;
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
  if (stream === "short_link_metrics") {
    return selectShortLinkRows(context, query.fromMs, query.toMs, nowMs, null, null).map((r) =>
      of(r.json, r.day, r.index),
    );
  }
  if (stream === "invoices") {
    return selectInvoiceRows(context, nowMs)
      .filter((r) => r.day * DAY_MS >= query.fromMs && r.day * DAY_MS <= query.toMs)
      .map((r) => of(r.json, r.day, r.index));
  }
  return visibleCalls(runtime, query).map((call) =>
    of(serializeCdr(call), Math.floor(call.startMs / DAY_MS), call.index, call.direction),
  );
}

/** Truth of the streams read per record (not through a list): transcriptions, validations, recordings. */
function recordTruthLines(runtime: SandboxRuntime, stream: RecordStream, query: TruthQuery): string[] {
  const nowMs = runtime.clock.now();
  if (stream === "validations") {
    return query.account.validations
      .filter(
        (v) => v.createdAtMs <= nowMs && v.createdAtMs >= query.fromMs && v.createdAtMs < query.toMs + DAY_MS,
      )
      .map((v) => JSON.stringify({ token: v.token, ...validationResponse(runtime.world.seed, v, nowMs) }));
  }
  const lines: string[] = [];
  for (const call of visibleCalls(runtime, query)) {
    if (stream === "recordings" && call.recordingUrl !== null) {
      const date = formatCdrDate(call.startMs);
      lines.push(
        JSON.stringify({
          uuid: call.uuid,
          direction: call.direction,
          date,
          recording_url: call.recordingUrl,
        }),
      );
    }
    if (stream === "transcriptions" && call.transcription && call.transcription.readyAtMs <= nowMs) {
      lines.push(JSON.stringify(transcriptionOf(runtime.world.seed, query.account.id, call)));
    }
  }
  return lines;
}

/**
 * The JSON lines a perfect loader holds for `stream` at the current clock: every visible record
 * byte for byte as the API serves it (rows with extra unknown fields included, with the extras),
 * without the rows the active fault profile corrupts beyond validity. CDR lines carry an extra
 * `direction` (`placed`/`received`). Transcriptions: the 200 body of every ready transcription of
 * a visible CDR; validations: `{token, ...response now}` per token made in the range; recordings:
 * `{uuid, direction, date, recording_url}` per visible CDR with a recording. Order is not meaningful.
 */
export function truthLines(runtime: SandboxRuntime, stream: TruthStream, query: TruthQuery): string[] {
  if (!isListStream(stream)) return recordTruthLines(runtime, stream, query);
  const { faults } = runtime;
  const lines: string[] = [];
  for (const row of streamRows(runtime, stream, query)) {
    let json = row.json;
    if (faults.corruptsRows) {
      const fault = rowFaultOf(faults.profile, faults.seed, row.identity);
      if (fault && isRejected(fault)) continue;
      if (fault) json = corruptRow(row.identity, json, fault, faults.seed);
    }
    lines.push(row.direction ? appendJsonField(json, "direction", row.direction) : json);
  }
  return lines;
}

/**
 * The rows the active fault profile corrupts, visible now in the range: `{stream, kind, rejected,
 * direction (CDRs), raw}` where `raw` is the row exactly as served. `rejected: false` rows
 * (`extra_field`) are valid and belong in the truth; the others must end up in the loader's rejects.
 */
export function malformedLines(runtime: SandboxRuntime, stream: TruthStream, query: TruthQuery): string[] {
  const { faults } = runtime;
  if (!faults.corruptsRows || !isListStream(stream)) return [];
  const lines: string[] = [];
  for (const row of streamRows(runtime, stream, query)) {
    const fault = rowFaultOf(faults.profile, faults.seed, row.identity);
    if (!fault) continue;
    const raw = corruptRow(row.identity, row.json, fault, faults.seed);
    const direction = row.direction ? `"direction":"${row.direction}",` : "";
    lines.push(
      `{"stream":"${stream}","kind":"${FAULT_NAMES[fault]}","rejected":${isRejected(fault)},${direction}"raw":${raw}}`,
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
      let line = appendJsonField(serializeCdr(call), "direction", call.direction);
      line = appendJsonField(line, "visible_at", formatCdrDate(call.visibleAtMs));
      lines.push(appendJsonField(line, "visible", call.visibleAtMs <= nowMs));
    }
  }
  return lines;
}
