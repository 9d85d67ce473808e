import type { FINAL_MESSAGE_STATUSES, MessageDirection, MessageType } from "@telecom-etl/platform/message.js";
import { encodeCallUuid } from "./call-uuid.js";
import {
  CA_AREA_CODES,
  MMS_CARRIER_FEE_MICROS,
  MMS_INBOUND_PRICE_MICROS,
  MMS_OUTBOUND_PRICE_MICROS,
  SMS_CARRIER_FEE_MICROS,
  SMS_SEGMENT_PRICE_MICROS,
} from "./catalog.js";
import { mix32, Rng, weightedTable } from "./prng.js";

/** A final message status. */
export type FinalMessageStatus = (typeof FINAL_MESSAGE_STATUSES)[number];

/**
 * One generated message, before serialization: its content and its whole timeline, so what the
 * API shows at any sandbox time follows from it (see serialize-message.ts). Times are whole
 * seconds (epoch ms); money is micro-dollars.
 */
export interface SandboxMessage {
  /** Position within (account, day) in generation order (the id and the row faults are keyed by it). */
  readonly index: number;
  readonly id: string;
  readonly type: MessageType;
  readonly direction: MessageDirection;
  readonly from: string;
  readonly to: string;
  readonly mcc: string | null;
  readonly mnc: string | null;
  readonly text: string;
  readonly media: readonly string[] | null;
  readonly tag: string | null;
  readonly segments: number;
  /** Listed from then on; the list's date window applies to it. */
  readonly submittedAtMs: number;
  /** `pending` from then until sent (throttled messages), else null. */
  readonly pendingAtMs: number | null;
  /** `sent` from then on (null: never sent, a rejected message). */
  readonly sentAtMs: number | null;
  /** When the final status is known (the delivery report arrives); `delivered_at` of a delivered message. */
  readonly finalAtMs: number;
  readonly finalStatus: FinalMessageStatus;
  /** The charge shown until the status is final. */
  readonly priceMicros: number;
  /** The charge once final (0 for rejected and expired messages). */
  readonly finalChargeMicros: number;
  /** `carrier_fees` of a delivered message. */
  readonly carrierFeeMicros: number;
  /** `error_message` once final (`""` when delivered). */
  readonly errorMessage: string;
}

/** How an outbound message fares: offsets from `submitted_at` in ms (whole seconds). */
export interface MessageFate {
  readonly pendingAfterMs: number | null;
  readonly sentAfterMs: number | null;
  readonly finalAfterMs: number;
  readonly finalStatus: FinalMessageStatus;
}

/** Latest final status of any message: 72 h after `submitted_at` (a delivery report never came). */
export const MESSAGE_FINAL_WITHIN_MS = 72 * 3_600_000;

const OUTCOMES = weightedTable(
  ["delivered", "undelivered", "expired", "rejected", "dlr_expired"] as const,
  [91.5, 3, 1.5, 2, 2],
);
const CARRIERS = weightedTable(
  [
    { mcc: "311", mnc: "480" },
    { mcc: "310", mnc: "260" },
    { mcc: "310", mnc: "410" },
    { mcc: null, mnc: null },
  ] as const,
  [30, 30, 30, 10],
);
/**
 * The Canadian network standing in for each US one of CARRIERS (Bell, Rogers, Telus): a message
 * to or from a Canadian number names a Canadian network, drawn with the same weights.
 */
const CANADIAN_NETWORK: Readonly<Record<string, { readonly mcc: string; readonly mnc: string }>> = {
  "311-480": { mcc: "302", mnc: "610" },
  "310-260": { mcc: "302", mnc: "720" },
  "310-410": { mcc: "302", mnc: "220" },
};
const CANADIAN_AREA_CODES = new Set(CA_AREA_CODES.map(String));

/** The network of the other party (the recipient of an outbound message, the sender of an inbound one). */
function networkOf(
  drawn: { readonly mcc: string | null; readonly mnc: string | null },
  otherParty: string,
): { readonly mcc: string | null; readonly mnc: string | null } {
  const digits = otherParty.replace(/\D/g, "");
  const canadian =
    digits.length === 11 && digits.startsWith("1") && CANADIAN_AREA_CODES.has(digits.slice(1, 4));
  return canadian && drawn.mcc !== null ? (CANADIAN_NETWORK[`${drawn.mcc}-${drawn.mnc}`] ?? drawn) : drawn;
}
const ERRORS: Readonly<Record<Exclude<FinalMessageStatus, "delivered">, readonly string[]>> = {
  undelivered: ["Unknown subscriber", "Handset unreachable", "Carrier violation"],
  expired: ["Message validity period expired"],
  rejected: ["Destination number opted out", "Invalid destination number", "Blocked as spam"],
  dlr_expired: ["Delivery report not received"],
};
const MESSAGE_SALT = 0x5a5;
const SECOND = 1000;
const HOUR_S = 3600;

/** The seeded generator of message `index` of (account, day): its fate is drawn first, then the rest. */
export function messageRng(seed: number, account: number, dayNumber: number, index: number): Rng {
  return new Rng(mix32(seed ^ MESSAGE_SALT, account, dayNumber, index));
}

/**
 * Draws how an outbound message fares. 30% are throttled (`pending` after 1 s, sent 10 s-10 min
 * after submission), the others are sent after 1-5 s. Then: 2% `rejected` 1-5 s after submission
 * (never sent); delivered (91.5%) or undelivered (3%) when the delivery report arrives, a few
 * seconds to 6 h after sending, or 24-60 h after submission for 3% of them; `expired` 24-48 h and
 * `dlr_expired` exactly 72 h after submission.
 */
export function drawOutboundFate(rng: Rng): MessageFate {
  const throttled = rng.chance(0.3);
  const sentAfterMs = (throttled ? rng.int(10, 600) : rng.int(1, 5)) * SECOND;
  const finalStatus = rng.fromTable(OUTCOMES);
  const lateReport = rng.chance(0.03);
  const reportDelayS = Math.min(
    6 * HOUR_S,
    Math.max(1, Math.round(Math.exp(Math.log(5) + 2 * rng.normal()))),
  );
  const pendingAfterMs = throttled ? SECOND : null;
  switch (finalStatus) {
    case "rejected":
      return { pendingAfterMs: null, sentAfterMs: null, finalAfterMs: rng.int(1, 5) * SECOND, finalStatus };
    case "expired":
      return {
        pendingAfterMs,
        sentAfterMs,
        finalAfterMs: rng.int(24 * HOUR_S, 48 * HOUR_S) * SECOND,
        finalStatus,
      };
    case "dlr_expired":
      return { pendingAfterMs, sentAfterMs, finalAfterMs: MESSAGE_FINAL_WITHIN_MS, finalStatus };
    default:
      return {
        pendingAfterMs,
        sentAfterMs,
        finalAfterMs: lateReport
          ? rng.int(24 * HOUR_S, 60 * HOUR_S) * SECOND
          : sentAfterMs + reportDelayS * SECOND,
        finalStatus,
      };
  }
}

/** An inbound message is delivered to the account when it is submitted. */
const INBOUND_FATE: MessageFate = {
  pendingAfterMs: null,
  sentAfterMs: 0,
  finalAfterMs: 0,
  finalStatus: "delivered",
};

/** Segments of an SMS text (GSM-7: 160 characters in one, 153 per segment when concatenated); an MMS is one. */
export function segmentsOf(type: MessageType, text: string): number {
  if (type === "mms" || text.length <= 160) return 1;
  return Math.ceil(text.length / 153);
}

/** What a message costs: its price (the provisional charge) and its carrier fee once delivered. */
export interface MessagePricing {
  readonly priceMicros: number;
  readonly carrierFeeMicros: number;
}

/** The price and carrier fee of a message by type, direction and segments (catalog.ts). */
export function messagePricing(
  type: MessageType,
  direction: MessageDirection,
  segments: number,
): MessagePricing {
  if (type === "mms") {
    return {
      priceMicros: direction === "outbound" ? MMS_OUTBOUND_PRICE_MICROS : MMS_INBOUND_PRICE_MICROS,
      carrierFeeMicros: MMS_CARRIER_FEE_MICROS,
    };
  }
  return {
    priceMicros: SMS_SEGMENT_PRICE_MICROS * segments,
    carrierFeeMicros: SMS_CARRIER_FEE_MICROS * segments,
  };
}

/** Final charge for a final status: nothing for rejected and expired messages, else the price. */
function finalCharge(status: FinalMessageStatus, priceMicros: number): number {
  return status === "rejected" || status === "expired" ? 0 : priceMicros;
}

/** What a message with this fate and pricing costs once final: final charge, plus carrier fees when delivered. */
export function fateCostMicros(status: FinalMessageStatus, pricing: MessagePricing): number {
  return finalCharge(status, pricing.priceMicros) + (status === "delivered" ? pricing.carrierFeeMicros : 0);
}

/** The fate of message `at` of a day (the same draw {@link buildMessage} makes first). */
export function messageFate(at: MessageAt, direction: MessageDirection): MessageFate {
  return direction === "outbound"
    ? drawOutboundFate(messageRng(at.seed, at.account, at.dayNumber, at.index))
    : INBOUND_FATE;
}

/** What the day's plan says about a message; the rest is drawn from its own generator. */
export interface MessageSpec {
  readonly direction: MessageDirection;
  readonly type: MessageType;
  readonly from: string;
  readonly to: string;
  readonly text: string;
  readonly media: readonly string[] | null;
  readonly tag: string | null;
  readonly submittedAtMs: number;
}

/** Where a message lives: seed, account index, day and row. */
export interface MessageAt {
  readonly seed: number;
  readonly account: number;
  readonly dayNumber: number;
  readonly index: number;
}

/**
 * Builds message `at.index` of a day from its spec. Draws from the message's own generator: the
 * fate (outbound only), then the id, then the network (`mcc`/`mnc`, null for rejected messages),
 * then the error text of a failure.
 */
export function buildMessage(at: MessageAt, spec: MessageSpec): SandboxMessage {
  const rng = messageRng(at.seed, at.account, at.dayNumber, at.index);
  const fate = spec.direction === "outbound" ? drawOutboundFate(rng) : INBOUND_FATE;
  const id = encodeCallUuid(
    at.seed,
    { account: at.account, dayNumber: at.dayNumber, index: at.index, kind: 2 },
    rng,
  );
  const network = networkOf(rng.fromTable(CARRIERS), spec.direction === "outbound" ? spec.to : spec.from);
  const segments = segmentsOf(spec.type, spec.text);
  const { priceMicros, carrierFeeMicros } = messagePricing(spec.type, spec.direction, segments);
  const { finalStatus } = fate;
  const errorMessage = finalStatus === "delivered" ? "" : rng.pick(ERRORS[finalStatus]);
  const t0 = spec.submittedAtMs;
  return {
    index: at.index,
    id,
    type: spec.type,
    direction: spec.direction,
    from: spec.from,
    to: spec.to,
    mcc: finalStatus === "rejected" ? null : network.mcc,
    mnc: finalStatus === "rejected" ? null : network.mnc,
    text: spec.text,
    media: spec.media,
    tag: spec.tag,
    segments,
    submittedAtMs: t0,
    pendingAtMs: fate.pendingAfterMs === null ? null : t0 + fate.pendingAfterMs,
    sentAtMs: fate.sentAfterMs === null ? null : t0 + fate.sentAfterMs,
    finalAtMs: t0 + fate.finalAfterMs,
    finalStatus,
    priceMicros,
    finalChargeMicros: finalCharge(finalStatus, priceMicros),
    carrierFeeMicros,
    errorMessage,
  };
}

/** What a message costs the account once final: its final charge, plus carrier fees when delivered. */
export function messageCostMicros(message: SandboxMessage): number {
  return fateCostMicros(message.finalStatus, message);
}
