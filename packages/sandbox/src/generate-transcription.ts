import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import type { CallTranscription } from "@telecom-etl/platform/call-transcription.js";
import type { Transcription } from "@telecom-etl/platform/transcription.js";
import type { CdrCall } from "./generate-cdr-day.js";
import { formatMicros } from "./money.js";
import { hash32, Rng } from "./prng.js";
import { formatCdrDate } from "./serialize-cdr.js";
import type { UploadedAudio } from "./uploaded-audio.js";

const AGENT = [
  "Thank you for calling, how can I help you today?",
  "Let me pull up your account.",
  "I can take care of that for you right now.",
  "Is there anything else I can help you with?",
  "I have scheduled that for next Tuesday.",
  "I'm sorry about the trouble, let me fix it.",
] as const;
const CALLER = [
  "Hi, I'm calling about my last invoice.",
  "I'd like to reschedule my appointment.",
  "That works for me, thank you.",
  "I've been waiting for a callback for two days.",
  "Great, that's all I needed.",
  "Can you send me a confirmation by text?",
] as const;
const SENTIMENTS = ["positive", "neutral", "negative", "mixed"] as const;
const SUMMARIES = [
  "Caller asked about an invoice; the agent explained the charges.",
  "Appointment rescheduled at the caller's request.",
  "Caller complained about a late callback; the agent resolved it.",
  "Short confirmation call, no follow-up needed.",
] as const;

/** What was said on a completed call: turns between two speakers, a score and a summary. */
interface Conversation {
  readonly turns: NonNullable<Transcription["turns"]>;
  /** The full text of each speaker, keyed by speaker. */
  readonly texts: ReadonlyMap<string, string>;
  readonly score: string;
  readonly summary: string;
}

/**
 * The conversation of a completed recording, derived from its id (a call's uuid or an upload's
 * request id): turns alternate between the account's side (`agent`) and the other party, `s`/`e`
 * are ms from answer, sentiment labels are open (`mixed` occurs besides positive/neutral/negative).
 */
function conversationOf(
  seed: number,
  id: string,
  duration: number,
  agent: string,
  caller: string,
): Conversation {
  const rng = new Rng(hash32(seed, "transcription", id));
  const count = Math.max(2, Math.min(40, Math.floor(duration / 8)));
  const slice = Math.floor((duration * 1000) / count);
  const turns: NonNullable<Transcription["turns"]> = [];
  let positive = 0;
  for (let i = 0; i < count; i++) {
    const speaker = i % 2 === 0 ? agent : caller;
    const sentiment = rng.weighted(SENTIMENTS, [40, 40, 17, 3]);
    if (sentiment === "positive") positive += 1;
    if (sentiment === "negative") positive -= 1;
    const s = i * slice;
    turns.push({
      speaker,
      s,
      e: s + Math.max(1, slice - rng.int(0, Math.floor(slice / 4))),
      text: rng.pick(speaker === agent ? AGENT : CALLER),
      sentiment,
    });
  }
  const score = Math.max(1, Math.min(5, 3 + positive / count + rng.next() * 1.4 - 0.7));
  const textOf = (speaker: string) =>
    turns
      .filter((t) => t.speaker === speaker)
      .map((t) => t.text)
      .join(" ");
  return {
    turns,
    texts: new Map([
      [agent, textOf(agent)],
      [caller, textOf(caller)],
    ]),
    score: score.toFixed(1),
    summary: rng.pick(SUMMARIES),
  };
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";

/**
 * The transcription of an uploaded file as `GET /v1/speech-analytics/{request_id}` answers it once
 * ready (both revisions; platform-api.md "Transcription"): speakers are `channel_1` and `channel_2`.
 */
export function uploadTranscriptionOf(seed: number, accountId: number, upload: UploadedAudio): Transcription {
  const spec = upload.transcription;
  const common = {
    request_id: upload.requestId,
    duration: upload.duration,
    charge: formatMicros(spec.chargeMicros),
    status: spec.status,
    transcription_date: iso(spec.readyAtMs),
    original_file: `https://uploads.sandbox.test/${accountId}/${upload.requestId}.wav`,
  };
  if (spec.status === "failed") {
    return {
      transcript: { channel_1: "", channel_2: "" },
      turns: null,
      language: null,
      transcription_score: null,
      transcription_summary: null,
      ...common,
    };
  }
  const talk = conversationOf(seed, upload.requestId, upload.duration, "channel_1", "channel_2");
  return {
    transcript: { channel_1: talk.texts.get("channel_1")!, channel_2: talk.texts.get("channel_2")! },
    turns: talk.turns,
    language: spec.language,
    transcription_score: talk.score,
    transcription_summary: talk.summary,
    ...common,
  };
}

/** The transcription's own id (revision 2026 `uuid`): a version-4 layout seeded by the call. */
function transcriptionId(seed: number, call: CdrCall): string {
  const rng = new Rng(hash32(seed, "transcription-id", call.uuid));
  return `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-${"89ab"[rng.int(0, 3)]}${rng.hex(3)}-${rng.hex(12)}`;
}

/**
 * The transcription of a call as `GET /v1/cdr/{uuid}/transcription` (2024) and
 * `GET /v1/cdrs/{call_id}/transcription` (2026) answer it once ready (platform-facts.md "A call's
 * transcription"): the call's phone numbers are the speakers (the account's side is `from` for a
 * placed call, `to` for a received one); 2026 adds the call's `date`, `from` and `to`.
 */
export function callTranscriptionOf(seed: number, call: CdrCall, revision: ApiRevision): CallTranscription {
  const spec = call.transcription!;
  const [agent, caller] = call.direction === "placed" ? [call.from, call.to] : [call.to, call.from];
  const completed = spec.status === "completed";
  const talk = completed ? conversationOf(seed, call.uuid, call.duration, agent, caller) : null;
  const date = formatCdrDate(call.startMs);
  const body: CallTranscription = {
    transcript: { [call.from]: talk?.texts.get(call.from) ?? "", [call.to]: talk?.texts.get(call.to) ?? "" },
    turns: talk?.turns.map(({ speaker, ...turn }) => ({ type: speaker, ...turn })) ?? null,
    uuid: transcriptionId(seed, call),
    language: completed ? spec.language : null,
    duration: call.duration,
    charge: formatMicros(spec.chargeMicros),
    status: spec.status,
    transcription_date: iso(spec.readyAtMs),
    call_date: date,
    call_uuid: call.uuid,
    call_score: talk?.score ?? null,
    call_summary: talk?.summary ?? null,
  };
  return revision === "2026" ? { ...body, date, from: call.from, to: call.to } : body;
}
