import { z } from "zod";
import { dateTimeString, decimalString } from "./common.js";

/**
 * Text messages as `GET /v3/messages` lists them (platform-facts.md "Messages", both API
 * revisions). A message's `status`, `delivered_at`, `charge`, `carrier_fees` and `error_message`
 * change after it is first listed (delivery reports arrive later), so a day is re-read until every
 * message in it is final.
 */

/** Kinds of message (`message_type`, also a filter of the list). */
export const MESSAGE_TYPES = ["sms", "mms"] as const;
/** A message type. */
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** Directions of a message; the required `type` query parameter of the list takes the same words. */
export const MESSAGE_DIRECTIONS = ["inbound", "outbound"] as const;
/** A message direction. */
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];

/** Every status a message can carry, in lifecycle order: three in flight, then the five final ones. */
export const MESSAGE_STATUSES = [
  "accepted",
  "pending",
  "sent",
  "delivered",
  "undelivered",
  "expired",
  "rejected",
  "dlr_expired",
] as const;
/** A message status. */
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Statuses after which a message no longer changes. */
export const FINAL_MESSAGE_STATUSES = [
  "delivered",
  "undelivered",
  "expired",
  "rejected",
  "dlr_expired",
] as const satisfies readonly MessageStatus[];

/** The content of a message: its text and, for MMS, the URLs of its media (null for SMS). */
export const messageBodySchema = z.looseObject({
  text: z.string(),
  media: z.array(z.string()).nullable(),
});
/** A message's content. */
export type MessageBody = z.infer<typeof messageBodySchema>;

/**
 * One message. `from` is a number (digits) or an alphanumeric sender id; `tag` groups messages
 * (a campaign's `utm_campaign`) and is null for others; `segments` is 1 for MMS; `charge` is
 * provisional until the status is final; `carrier_fees` is present only once a message is
 * delivered; `error_message` is null while no final status is known and may be `""`.
 */
export const messageSchema = z.looseObject({
  message_id: z.string().min(1),
  message_type: z.enum(MESSAGE_TYPES),
  from: z.string(),
  to: z.string(),
  direction: z.enum(MESSAGE_DIRECTIONS),
  mcc: z.string().nullable(),
  mnc: z.string().nullable(),
  message_body: messageBodySchema,
  tag: z.string().nullable(),
  status: z.enum(MESSAGE_STATUSES),
  segments: z.number().int().min(1),
  charge: decimalString,
  carrier_fees: decimalString.optional(),
  submitted_at: dateTimeString,
  sent_at: dateTimeString.nullable(),
  delivered_at: dateTimeString.nullable(),
  error_message: z.string().nullable(),
});
/** A message row. */
export type Message = z.infer<typeof messageSchema>;
