import { z } from "zod";
import { dateTimeString } from "./common.js";

/** One Brand Identity verification appeal; `status` is open (`COMPLETE` and `COMPLETED` both occur). */
export const tenDlcAppealSchema = z.looseObject({
  categories: z.array(z.string()),
  created_at: dateTimeString,
  evidence: z.array(z.string()),
  explanation: z.string(),
  outcome: z.looseObject({
    optional_attributes: z.record(z.string(), z.unknown()),
    feedback: z.looseObject({ category: z.array(z.unknown()) }),
    vetting_status: z.string(),
  }),
  status: z.string(),
  updated_at: dateTimeString,
});
/** A 10DLC appeal. */
export type TenDlcAppeal = z.infer<typeof tenDlcAppealSchema>;

/** `GET /v3/10dlc/brands/{brand_id}/appeals` answers a bare array. */
export const tenDlcAppealsResponseSchema = z.array(tenDlcAppealSchema);

/** Intents of a Campaign nudge. */
export const NUDGE_INTENTS = ["REVIEW", "APPEAL_REJECTION"] as const;

/** Body of `POST /v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge`. */
export const nudgeRequestSchema = z.object({
  nudge_intent: z.enum(NUDGE_INTENTS),
  description: z.string().min(1),
});
/** A nudge request. */
export type NudgeRequest = z.infer<typeof nudgeRequestSchema>;
