import type { Message, MessageStatus } from "@telecom-etl/platform/message.js";
import type { SandboxMessage } from "./generate-message.js";
import { formatMicros } from "./money.js";
import { formatCdrDate } from "./serialize-cdr.js";

/**
 * Status of a message at `nowMs` (at or after its submission): `accepted`, `pending` while
 * throttled, `sent`, then its final status once the delivery report arrives.
 */
export function messageStatusAt(message: SandboxMessage, nowMs: number): MessageStatus {
  if (nowMs >= message.finalAtMs) return message.finalStatus;
  if (message.sentAtMs !== null && nowMs >= message.sentAtMs) return "sent";
  if (message.pendingAtMs !== null && nowMs >= message.pendingAtMs) return "pending";
  return "accepted";
}

/**
 * A message as `GET /v3/messages` lists it at `nowMs`: until the status is final `charge` is the
 * provisional price and `error_message` null; once final, `charge` is the final charge (0 for
 * rejected and expired messages), `error_message` says why it failed (`""` when delivered), and a
 * delivered message gains `delivered_at` and `carrier_fees`.
 */
export function messageAt(message: SandboxMessage, nowMs: number): Message {
  const status = messageStatusAt(message, nowMs);
  const final = nowMs >= message.finalAtMs;
  const delivered = status === "delivered";
  return {
    message_id: message.id,
    message_type: message.type,
    from: message.from,
    to: message.to,
    direction: message.direction,
    mcc: message.mcc,
    mnc: message.mnc,
    message_body: { text: message.text, media: message.media === null ? null : [...message.media] },
    tag: message.tag,
    status,
    segments: message.segments,
    charge: formatMicros(final ? message.finalChargeMicros : message.priceMicros),
    ...(delivered ? { carrier_fees: formatMicros(message.carrierFeeMicros) } : {}),
    submitted_at: formatCdrDate(message.submittedAtMs),
    sent_at: message.sentAtMs !== null && nowMs >= message.sentAtMs ? formatCdrDate(message.sentAtMs) : null,
    delivered_at: delivered ? formatCdrDate(message.finalAtMs) : null,
    error_message: final ? message.errorMessage : null,
  };
}

/** The JSON of a message as listed at `nowMs`. */
export function serializeMessage(message: SandboxMessage, nowMs: number): string {
  return JSON.stringify(messageAt(message, nowMs));
}
