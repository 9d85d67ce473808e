import { z } from "zod";
import { dateTimeString } from "./common.js";
import { defineResource } from "./resource.js";

/**
 * Message opt-outs: numbers that asked to receive no more messages (platform-facts.md, "Message
 * opt-outs": both API revisions, permission `messages:read`). An opt-out is a fact that happened at
 * `created_at`; the same number may opt out of several senders. The list takes `sender_id`,
 * `campaign_id`, `created_after` and `created_before` (dates, both inclusive), `page`, `per_page`.
 */

/**
 * One opt-out: the number, the sender it opted out of (null: of every sender), the 10DLC campaign
 * it came through (nullable) and when. Rows have no id.
 */
export const messageOptOutSchema = z.looseObject({
  phone_number: z.string().min(1),
  sender_id: z.string().nullable(),
  campaign_id: z.string().nullable(),
  created_at: dateTimeString,
});
/** A message opt-out. */
export type MessageOptOut = z.infer<typeof messageOptOutSchema>;

/** `GET /v3/messages/opt-outs?created_after=D&created_before=D` (both revisions): pages of `items`. */
export const messageOptOutsResource = defineResource({
  kind: "windowed_list",
  paths: { "2024": "/v3/messages/opt-outs", "2026": "/v3/messages/opt-outs" },
  permission: "messages:read",
  envelope: { shape: "paged", items: "items" },
  item: messageOptOutSchema,
  window: { from: "created_after", to: "created_before", toBound: "last_day" },
  example: {
    phone_number: "12125550100",
    sender_id: "12125550199",
    campaign_id: "CQ1A2B3",
    created_at: "2026-08-01T18:04:11Z",
  },
});
