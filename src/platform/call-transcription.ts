import { z } from "zod";
import { dateTimeString, decimalString } from "./common.js";
import { TRANSCRIPTION_LANGUAGES, TRANSCRIPTION_STATUSES, transcriptionTurnSchema } from "./transcription.js";

/** A score from 1 to 5 as a decimal string (`"3.8"`). */
const callScore = decimalString.refine((text) => Number(text) >= 1 && Number(text) <= 5, {
  message: "expected a decimal string from 1 to 5",
});

/**
 * `GET /v1/cdrs/{call_id}/transcription` 200 body (API revision 2026): a call's transcription in
 * its own shape. `transcript` maps each phone number of the call (`from`, `to`) to what was said on
 * it; `uuid` is the transcription's own id and `call_uuid` the call's; the call's `date`, `from`
 * and `to` come along. Failed transcriptions have null `turns`, `language`, `call_score`, `call_summary`.
 */
export const callTranscriptionSchema = z.looseObject({
  transcript: z.record(z.string(), z.string()),
  turns: z.array(transcriptionTurnSchema).nullable(),
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
  date: dateTimeString.nullable(),
  from: z.string(),
  to: z.string(),
});
/** A call transcription (2026 shape). */
export type CallTranscription = z.infer<typeof callTranscriptionSchema>;
