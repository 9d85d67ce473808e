import { z } from "zod";
import { dateTimeString } from "./common.js";

/**
 * `GET /v1/recordings/{call_id}` (API revision 2026). The platform does not document the body;
 * this is the sandbox's choice: the call id, the recording's URL, the call's `date` and `duration`.
 */
export const recordingSchema = z.looseObject({
  call_id: z.string().min(1),
  recording_url: z.string(),
  date: dateTimeString,
  duration: z.number().int(),
});
/** A call recording. */
export type Recording = z.infer<typeof recordingSchema>;
