import { z } from "zod";
import { dateTimeString, decimalString } from "./common.js";

/** Languages a transcription is made in. */
export const TRANSCRIPTION_LANGUAGES = ["en", "de", "es", "fr", "it"] as const;
/** Final states of a transcription. */
export const TRANSCRIPTION_STATUSES = ["completed", "failed"] as const;
/** A transcription status. */
export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

/** One speaker turn; `s`/`e` are milliseconds from call answer; `sentiment` is an open label. */
export const transcriptionTurnSchema = z.looseObject({
  speaker: z.string(),
  s: z.number().int(),
  e: z.number().int(),
  text: z.string(),
  sentiment: z.string(),
});
/** A transcription turn. */
export type TranscriptionTurn = z.infer<typeof transcriptionTurnSchema>;

/**
 * `GET /v1/speech-analytics/{request_id}` 200 body: the transcription of an uploaded audio file
 * (`request_id` is the transcription request's id, never a call's; a call's transcription is
 * `callTranscriptionSchema`, read under its CDR).
 */
export const transcriptionSchema = z.looseObject({
  transcript: z.looseObject({ channel_1: z.string(), channel_2: z.string() }),
  turns: z.array(transcriptionTurnSchema).nullable(),
  request_id: z.string().min(1),
  language: z.enum(TRANSCRIPTION_LANGUAGES).nullable(),
  duration: z.number().int().nullable(),
  charge: decimalString,
  status: z.enum(TRANSCRIPTION_STATUSES),
  transcription_date: dateTimeString,
  transcription_score: decimalString.nullable(),
  transcription_summary: z.string().nullable(),
  original_file: z.string(),
});
/** A transcription. */
export type Transcription = z.infer<typeof transcriptionSchema>;
