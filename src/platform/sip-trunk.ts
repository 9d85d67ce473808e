import { z } from "zod";
import { dateTimeString, decimalString } from "./common.js";

/** A SIP trunk. */
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
/** A SIP trunk. */
export type SipTrunk = z.infer<typeof sipTrunkSchema>;

/** `GET /v1/trunks` answers a bare array of the account's trunks. */
export const sipTrunksResponseSchema = z.array(sipTrunkSchema);

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
