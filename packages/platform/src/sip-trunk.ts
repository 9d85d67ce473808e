import { z } from "zod";
import { dateTimeString, decimalString } from "./common.js";
import { exactNumber } from "./exact-number.js";

/**
 * A SIP trunk with all its settings, the interface document's "SIP trunk" object: what
 * `POST /v1/trunks` answers and `GET /v1/trunks/{id}` serves. The list serves summaries
 * ({@link sipTrunkSummarySchema}).
 */
export const sipTrunkSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  callerid: z.string(),
  label: z.string(),
  allowed_ips: z.array(z.looseObject({ id: z.number().int(), ip: z.string() })),
  created_at: dateTimeString,
  ip_restrict: z.boolean(),
  channels_restrict: z.boolean(),
  max_channels: z.number().int().nullable(),
  cost_limit: z.boolean(),
  max_call_cost: decimalString.nullable(),
  call_restrict: z.boolean().nullable(),
  call_limit: z.number().int().nullable(),
  didinfo_enabled: z.boolean(),
  rewrite_enabled: z.boolean(),
  rewrite_prefix: z.string(),
  rewrite_cond: z.string(),
  call_recording_enabled: z.boolean(),
  machine_detection_enabled: z.boolean(),
  transcription_enabled: z.boolean(),
  transcription_threshold: z.number().int(),
  host: z.string(),
  multiple_numbers: z.boolean(),
  encrypted_media: z.boolean(),
  access_token: z.string(),
});
/** A SIP trunk with all its settings. */
export type SipTrunk = z.infer<typeof sipTrunkSchema>;

/**
 * The month-to-date charge of a trunk: a decimal string like all money (platform-facts.md). The
 * platform's reference shows it as a JSON number in one example: such a number is read exactly, from
 * its source text (the catalogue names `charge` among the trunk list's exact numbers).
 */
export const trunkChargeSchema = z.union([decimalString, exactNumber]);

/** The IP-authentication request of a trunk (`host_request`): the host it calls from and the request's status. */
export const hostRequestSchema = z.looseObject({
  host: z.string(),
  status: z.string(),
});

/**
 * A trunk as `GET /v1/trunks` lists it (the platform's published reference): a summary, not every
 * setting. `talk_time` (seconds) and `charge` (USD) are the trunk's outbound totals for the current
 * month so far, reset at the start of each month. `callerid` may be null or "" (several caller
 * ids); `host_request` is null for a Digest trunk. `status` and `auth_method` are labels (the known
 * ones in TRUNK_STATUSES, TRUNK_AUTH_METHODS; others are kept). `access_token` is a credential.
 */
export const sipTrunkSummarySchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  label: z.string(),
  callerid: z.string().nullable(),
  auth_method: z.string(),
  host_request: hostRequestSchema.nullable(),
  status: z.string(),
  charge: trunkChargeSchema,
  talk_time: z.number().int().min(0),
  passthrough: z.boolean(),
  multiple_numbers: z.boolean(),
  encrypted_media: z.boolean(),
  call_recording_enabled: z.boolean(),
  machine_detection_enabled: z.boolean(),
  transcription_enabled: z.boolean(),
  transcription_threshold: z.number().int(),
  access_token: z.string().optional(),
});
/** A trunk as the list serves it. */
export type SipTrunkSummary = z.infer<typeof sipTrunkSummarySchema>;

/** Body of `POST /v1/trunks`. */
export const createTrunkRequestSchema = z.object({
  label: z.string().min(1),
  password: z.string().min(1),
  callerid: z.string(),
  ip_restrict: z.boolean(),
  didinfo_enabled: z.boolean(),
  call_restrict: z.boolean(),
  cost_limit: z.boolean(),
  channels_restrict: z.boolean(),
  rewrite_enabled: z.boolean(),
  transcription_enabled: z.boolean(),
  transcription_threshold: z.number().int().min(0),
  host_request: z.object({ host: z.string() }).optional(),
  multiple_numbers: z.boolean().optional(),
  allowed_ips: z
    .array(z.object({ ip: z.ipv4() }))
    .nullable()
    .optional(),
  call_limit: z.number().int().min(0).optional(),
  max_call_cost: z.number().min(0).optional(),
  max_channels: z.number().int().min(0).optional(),
  rewrite_prefix: z.string().optional(),
  rewrite_cond: z.string().optional(),
  call_recording_enabled: z.boolean().optional(),
  machine_detection_enabled: z.boolean().optional(),
  encrypted_media: z.boolean().optional(),
});
/** A trunk creation request. */
export type CreateTrunkRequest = z.infer<typeof createTrunkRequestSchema>;
