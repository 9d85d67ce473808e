import type { CdrCall } from "./generate-cdr-day.js";
import { callTranscriptionOf, uploadTranscriptionOf } from "./generate-transcription.js";
import { validationResponse } from "./generate-validation.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { formatCdrDate } from "./serialize-cdr.js";
import { heldCalls } from "./served-calls.js";
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

/** The truth line of one held call for a call-based record stream at `nowMs`, or null when it has no such record. */
function callLine(
  runtime: SandboxRuntime,
  stream: RecordStream,
  call: CdrCall,
  nowMs: number,
): string | null {
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
  const { nowMs } = query;
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
 * range, its request id, times, status and speech-analytics body once ready. Per call of the CDR
 * truth (visible, its served row valid: a loader reaches a call's transcription only through a CDR
 * it holds; see served-calls.ts): `transcriptions` the 200 body of its ready transcription under
 * the CDR, in the active revision's shape; `transcription_requests` `{uuid, direction, status:
 * pending|completed|failed, ready_at}` when it has a transcription at all (ready or not).
 */
export function recordTruthLines(runtime: SandboxRuntime, stream: RecordStream, query: TruthQuery): string[] {
  const { nowMs } = query;
  if (stream === "validations") {
    return query.account.validations
      .filter(
        (v) => v.createdAtMs <= nowMs && v.createdAtMs >= query.fromMs && v.createdAtMs < query.toMs + DAY_MS,
      )
      .map((v) => JSON.stringify({ token: v.token, ...validationResponse(runtime.world.seed, v, nowMs) }));
  }
  if (stream === "uploaded_transcriptions") return uploadLines(runtime, query);
  const lines: string[] = [];
  for (const call of heldCalls(runtime, query)) {
    const line = callLine(runtime, stream, call, nowMs);
    if (line !== null) lines.push(line);
  }
  return lines;
}
