import type { CdrCall } from "./generate-cdr-day.js";
import { callTranscriptionOf, uploadTranscriptionOf } from "./generate-transcription.js";
import { validationResponse } from "./generate-validation.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { formatCdrDate } from "./serialize-cdr.js";
import type { TruthQuery } from "./truth-query.js";
import { uploadedAudio } from "./uploaded-audio.js";

/** Streams read per record (not through a list): their truth is one line per record of the range. */
export const RECORD_STREAMS = [
  "transcriptions",
  "validations",
  "transcription_requests",
  "uploaded_transcriptions",
] as const;
/** A record stream. */
export type RecordStream = (typeof RECORD_STREAMS)[number];

/** Every call of the range whose CDR is visible now (both directions, generated and API-started). */
export function visibleCalls(runtime: SandboxRuntime, query: TruthQuery): CdrCall[] {
  const nowMs = runtime.clock.now();
  const calls: CdrCall[] = [];
  for (let day = query.fromMs / DAY_MS; day <= query.toMs / DAY_MS && day * DAY_MS <= nowMs; day++) {
    if (runtime.cdrs.isEmpty(query.account, day)) continue;
    for (const call of runtime.cdrs.calls(query.account, day))
      if (call.visibleAtMs <= nowMs) calls.push(call);
  }
  return calls;
}

/** The truth line of one visible call for a call-based record stream, or null when it has no such record. */
function callLine(runtime: SandboxRuntime, stream: RecordStream, call: CdrCall): string | null {
  const nowMs = runtime.clock.now();
  const { seed } = runtime.world;
  const spec = call.transcription;
  switch (stream) {
    case "transcriptions":
      if (!spec || spec.readyAtMs > nowMs) return null;
      return JSON.stringify(callTranscriptionOf(seed, call, runtime.options.apiRevision));
    case "transcription_requests":
      return spec
        ? JSON.stringify({
            uuid: call.uuid,
            direction: call.direction,
            status: spec.readyAtMs > nowMs ? "pending" : spec.status,
            ready_at: formatCdrDate(spec.readyAtMs),
          })
        : null;
    default:
      return null;
  }
}

/** `{request_id, submitted_at, ready_at, status: pending|completed|failed, transcription: 200 body | null}` per upload of the range. */
function uploadLines(runtime: SandboxRuntime, query: TruthQuery): string[] {
  const nowMs = runtime.clock.now();
  return uploadedAudio(runtime.world, query.account)
    .filter(
      (u) =>
        u.submittedAtMs <= nowMs && u.submittedAtMs >= query.fromMs && u.submittedAtMs < query.toMs + DAY_MS,
    )
    .map((u) => {
      const ready = u.transcription.readyAtMs <= nowMs;
      return JSON.stringify({
        request_id: u.requestId,
        submitted_at: formatCdrDate(u.submittedAtMs),
        ready_at: formatCdrDate(u.transcription.readyAtMs),
        status: ready ? u.transcription.status : "pending",
        transcription: ready ? uploadTranscriptionOf(runtime.world.seed, query.account.id, u) : null,
      });
    });
}

/**
 * Truth of the streams read per record. `validations`: `{token, ...GET /v1/validation body now}`
 * per token made in the range; `uploaded_transcriptions`: per uploaded audio file submitted in the
 * range, its request id, times, status and speech-analytics body once ready. Per visible CDR of
 * the range: `transcriptions` the 200 body of its ready transcription under the CDR, in the active
 * revision's shape; `transcription_requests` `{uuid, direction, status: pending|completed|failed,
 * ready_at}` when it has a transcription at all (ready or not).
 */
export function recordTruthLines(runtime: SandboxRuntime, stream: RecordStream, query: TruthQuery): string[] {
  const nowMs = runtime.clock.now();
  if (stream === "validations") {
    return query.account.validations
      .filter(
        (v) => v.createdAtMs <= nowMs && v.createdAtMs >= query.fromMs && v.createdAtMs < query.toMs + DAY_MS,
      )
      .map((v) => JSON.stringify({ token: v.token, ...validationResponse(runtime.world.seed, v, nowMs) }));
  }
  if (stream === "uploaded_transcriptions") return uploadLines(runtime, query);
  const lines: string[] = [];
  for (const call of visibleCalls(runtime, query)) {
    const line = callLine(runtime, stream, call);
    if (line !== null) lines.push(line);
  }
  return lines;
}
