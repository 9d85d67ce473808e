import type { Transcription } from "../platform/transcription.js";
import type { CdrCall } from "./generate-cdr-day.js";
import { formatMicros } from "./money.js";
import { hash32, Rng } from "./prng.js";

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

/**
 * The transcription of a call (`GET /v1/speech-analytics/{uuid}` once ready), derived from the
 * call's uuid: turns alternate between channels, `s`/`e` are ms from answer, sentiment labels are
 * open (`mixed` occurs besides positive/neutral/negative).
 */
export function transcriptionOf(seed: number, accountId: number, call: CdrCall): Transcription {
  const spec = call.transcription!;
  const common = {
    request_id: call.uuid,
    duration: call.duration,
    charge: formatMicros(spec.chargeMicros),
    status: spec.status,
    transcription_date: new Date(spec.readyAtMs).toISOString().slice(0, 19) + "Z",
    original_file: `https://recordings.sandbox.test/${accountId}/${call.uuid}.wav`,
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
  const rng = new Rng(hash32(seed, "transcription", call.uuid));
  const count = Math.max(2, Math.min(40, Math.floor(call.duration / 8)));
  const slice = Math.floor((call.duration * 1000) / count);
  const turns: NonNullable<Transcription["turns"]> = [];
  let positive = 0;
  for (let i = 0; i < count; i++) {
    const speaker = i % 2 === 0 ? "channel_1" : "channel_2";
    const sentiment = rng.weighted(SENTIMENTS, [40, 40, 17, 3]);
    if (sentiment === "positive") positive += 1;
    if (sentiment === "negative") positive -= 1;
    const s = i * slice;
    turns.push({
      speaker,
      s,
      e: s + Math.max(1, slice - rng.int(0, Math.floor(slice / 4))),
      text: rng.pick(speaker === "channel_1" ? AGENT : CALLER),
      sentiment,
    });
  }
  const score = Math.max(1, Math.min(5, 3 + positive / count + rng.next() * 1.4 - 0.7));
  return {
    transcript: {
      channel_1: turns
        .filter((t) => t.speaker === "channel_1")
        .map((t) => t.text)
        .join(" "),
      channel_2: turns
        .filter((t) => t.speaker === "channel_2")
        .map((t) => t.text)
        .join(" "),
    },
    turns,
    language: spec.language,
    transcription_score: score.toFixed(1),
    transcription_summary: rng.pick(SUMMARIES),
    ...common,
  };
}
