import { z } from "zod";
import { dateTimeString } from "./common.js";

/** Directions of a started call. */
export const CALL_DIRECTIONS = ["inbound", "outbound"] as const;

/** Latest-event values of a call. */
export const CALL_EVENT_TYPES = [
  "call_setup",
  "ringing",
  "early_media",
  "answered",
  "completed",
  "busy",
  "cancelled",
  "rejected",
  "on_call_event",
] as const;
/** A call event type. */
export type CallEventType = (typeof CALL_EVENT_TYPES)[number];

/** A call as `POST /v1/calls` returns it, and the on-call event body. */
export const callSchema = z.looseObject({
  uuid: z.string().min(1),
  direction: z.enum(CALL_DIRECTIONS),
  event_type: z.enum(CALL_EVENT_TYPES),
  event_time: dateTimeString,
  event_payload: z.record(z.string(), z.unknown()).nullable(),
  from: z.string(),
  to: z.string(),
  call_started: dateTimeString,
  call_answered: dateTimeString.nullable(),
  call_completed: dateTimeString.nullable(),
  machine_detected: z.boolean(),
  tag: z.string(),
});
/** A call. */
export type Call = z.infer<typeof callSchema>;

/** Body of `POST /v1/calls`. */
export const startCallRequestSchema = z.object({
  from: z.string().min(1),
  to: z.string().regex(/^\+[1-9]\d{6,14}$/, "expected E.164"),
  callback_url: z.url(),
  recording: z.boolean().optional(),
  voicemail_detection: z.boolean().optional(),
  tag: z.string().optional(),
  timeout: z.number().int().min(1).optional(),
});
/** A call start request. */
export type StartCallRequest = z.infer<typeof startCallRequestSchema>;

/** Kinds of account-level call webhooks. */
export const CALL_WEBHOOK_EVENT_TYPES = ["post-call", "on-call"] as const;
/** A call webhook kind. */
export type CallWebhookEventType = (typeof CALL_WEBHOOK_EVENT_TYPES)[number];

/** An account-level call webhook. */
export const callWebhookSchema = z.looseObject({
  event_type: z.enum(CALL_WEBHOOK_EVENT_TYPES),
  url: z.string(),
});
/** A call webhook. */
export type CallWebhook = z.infer<typeof callWebhookSchema>;
