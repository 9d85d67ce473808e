import { z } from "zod";
import { dateTimeString } from "./common.js";

/**
 * Call recordings as the platform lists them (platform-facts.md "Lists and lookups": recordings
 * are a date-windowed list, both API revisions): `GET /v1/recordings?from_date&to_date` answers
 * pages of items; `GET /v1/recordings/{call_uuid}` (2026: `{call_id}`) answers one call's item.
 * Field types from the platform's public reference (docs.wavix.com, "Retrieve a recording"): every
 * field required, `id` an integer, `created_at` an ISO 8601 date-time, `duration` whole seconds.
 */

/**
 * One recording: its id (an integer; stored as `bigint`), when it was made (the end of its call),
 * its length in seconds, the call's parties, the call's id and the recording file's URL.
 */
export const recordingSchema = z.looseObject({
  id: z.number().int().nonnegative(),
  created_at: dateTimeString,
  duration: z.number().int().nonnegative(),
  from: z.string(),
  to: z.string(),
  call_uuid: z.string().min(1),
  url: z.string().min(1),
});
/** A call recording. */
export type Recording = z.infer<typeof recordingSchema>;

/** The filter values the list did not recognise (numbers and trunk names given in `from`/`to`/`sip_trunks`). */
export const invalidRecordingFiltersSchema = z.looseObject({
  dids: z.array(z.string()).nullish(),
  sip_trunks: z.array(z.string()).nullish(),
});
