import { z } from "zod";
import { dateTimeString } from "./common.js";

/** States of a sub-account. */
export const SUB_ACCOUNT_STATUSES = ["enabled", "disabled"] as const;

/** Default endpoints of a sub-account for inbound messages and delivery reports. */
export const defaultDestinationsSchema = z.looseObject({
  sms_endpoint: z.string().nullable(),
  dlr_endpoint: z.string().nullable(),
});

/** A sub-account (sub-organization). */
export const subAccountSchema = z.looseObject({
  id: z.number().int(),
  created_at: dateTimeString,
  name: z.string(),
  api_key: z.string(),
  master_organization: z.number().int(),
  status: z.enum(SUB_ACCOUNT_STATUSES),
  default_destinations: defaultDestinationsSchema,
});
/** A sub-account. */
export type SubAccount = z.infer<typeof subAccountSchema>;

/** Body of `PUT /v1/sub-organizations/{id}`. */
export const updateSubAccountRequestSchema = z.object({
  name: z.string().min(1).max(255),
  status: z.enum(SUB_ACCOUNT_STATUSES).optional(),
  default_destinations: z
    .object({ sms_endpoint: z.string().optional(), dlr_endpoint: z.string().optional() })
    .optional(),
});
/** A sub-account update. */
export type UpdateSubAccountRequest = z.infer<typeof updateSubAccountRequestSchema>;
