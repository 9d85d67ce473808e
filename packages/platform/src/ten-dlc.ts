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

/** A 10DLC campaign of a brand with its review state (the platform's full state set is not documented). */
export const tenDlcCampaignSummarySchema = z.looseObject({
  campaign_id: z.string().min(1),
  status: z.string(),
});

/**
 * One item of `GET /v3/10dlc/brands` (sandbox extension: the interface shows brand ids only as
 * path parameters): a brand id with its campaigns.
 */
export const tenDlcBrandSchema = z.looseObject({
  brand_id: z.string().min(1),
  campaigns: z.array(tenDlcCampaignSummarySchema),
});
/** A 10DLC brand with its campaigns. */
export type TenDlcBrand = z.infer<typeof tenDlcBrandSchema>;

/** Intents of a Campaign nudge. */
export const NUDGE_INTENTS = ["REVIEW", "APPEAL_REJECTION"] as const;

/** Body of `POST /v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge`. */
export const nudgeRequestSchema = z.object({
  nudge_intent: z.enum(NUDGE_INTENTS),
  description: z.string().min(1),
});
/** A nudge request. */
export type NudgeRequest = z.infer<typeof nudgeRequestSchema>;
