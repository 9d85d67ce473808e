import { z } from "zod";
import { dateTimeString, decimalString } from "./common.js";
import { TRANSCRIPTION_LANGUAGES, TRANSCRIPTION_STATUSES } from "./transcription.js";

/** A score from 1 to 5 as a decimal string (`"3.8"`). */
const callScore = decimalString.refine((text) => Number(text) >= 1 && Number(text) <= 5, {
  message: "expected a decimal string from 1 to 5",
});

/**
 * One turn of a call's transcription: `type` is the speaker's phone number (a key of `transcript`),
 * `s`/`e` ms from call answer, `sentiment` an open label (platform-facts.md).
 */
export const callTranscriptionTurnSchema = z.looseObject({
  type: z.string(),
  s: z.number().int(),
  e: z.number().int(),
  text: z.string(),
  sentiment: z.string(),
});
/** A turn of a call's transcription. */
export type CallTranscriptionTurn = z.infer<typeof callTranscriptionTurnSchema>;

/**
 * `GET /v1/cdr/{uuid}/transcription` (2024) and `GET /v1/cdrs/{call_id}/transcription` (2026) 200
 * body (platform-facts.md "A call's transcription"). `transcript` maps each phone number of the
 * call to what was said on it; `uuid` is the transcription's own id and `call_uuid` the call's;
 * 2026 adds the call's `date`, `from` and `to`. Failed transcriptions have null `turns`,
 * `language`, `call_score`, `call_summary`.
 */
export const callTranscriptionSchema = z.looseObject({
  transcript: z.record(z.string(), z.string()),
  turns: z.array(callTranscriptionTurnSchema).nullable(),
  uuid: z.string().min(1),
  language: z.enum(TRANSCRIPTION_LANGUAGES).nullable(),
  duration: z.number().int().nullable(),
  charge: decimalString,
  status: z.enum(TRANSCRIPTION_STATUSES),
  transcription_date: dateTimeString,
  call_date: dateTimeString,
  call_uuid: z.string().min(1),
  call_score: callScore.nullable(),
  call_summary: z.string().nullable(),
  date: dateTimeString.nullable().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
});
/** A call transcription (2026 shape). */
export type CallTranscription = z.infer<typeof callTranscriptionSchema>;
