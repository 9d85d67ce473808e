import { z } from "zod";
import { dateTimeString } from "./common.js";
import { exactInteger, exactNumber } from "./exact-number.js";

/**
 * The billing ledger (platform-facts.md "Billing transactions"): `GET /v1/billing/transactions`
 * (the account's own) and `GET /v1/sub-organizations/{id}/billing/transactions` (a sub-account's,
 * read with the master's key). `amount` and `balance_after` are JSON numbers that must stay exact,
 * and `id` is an int64: the three are parsed from their source text (see exact-number.ts).
 */

/** The fields of a transaction the platform writes as JSON numbers that must stay exact. */
export const TRANSACTION_EXACT_NUMBERS = ["id", "amount", "balance_after"] as const;

/** Statuses the platform documents (a status not in this list is kept as it is). */
export const TRANSACTION_STATUSES = ["Created", "Pending", "Committed", "Reverted"] as const;

/**
 * The documented transaction type codes and what they are (platform-facts.md). The platform may
 * send codes not in this list: they are kept as they are.
 */
export const TRANSACTION_TYPES = {
  0: "payment adjustment",
  2: "DID activation fee",
  3: "DID monthly fees",
  6: "DID forwarding",
  11: "PSTN forwarding fee",
  14: "outbound call",
  15: "outbound SMS",
  19: "credit card payment",
  20: "payment fee",
  23: "porting fee",
  24: "inbound SMS",
  25: "admin payment",
  26: "subscription payment",
  29: "number validator",
  30: "call recording",
  31: "storage charge",
  32: "campaign builder",
  33: "voicemail detection",
  34: "sender ID registration",
  35: "sender ID monthly fee",
  36: "2FA",
  37: "IVR",
  38: "E911 activation",
  39: "outbound MMS",
  40: "inbound MMS",
  41: "call transcription",
  42: "10DLC brand registration",
  43: "10DLC campaign registration",
  44: "DID order",
  45: "adjustment in",
  46: "URL shortener",
  47: "10DLC brand update",
  48: "10DLC brand appeal",
  49: "audio transcription",
  50: "10DLC brand vetting",
  51: "10DLC brand vetting appeal",
  52: "outbound SMS carrier fee",
  53: "inbound SMS carrier fee",
  54: "outbound MMS carrier fee",
  55: "inbound MMS carrier fee",
  57: "outbound SMS segments",
  58: "inbound SMS segments",
  59: "outbound MMS segments",
  60: "inbound MMS segments",
} as const satisfies Readonly<Record<number, string>>;

/**
 * One ledger line. Parse its body with `parseJsonExact(text, TRANSACTION_EXACT_NUMBERS)`: `id`,
 * `amount` and `balance_after` then validate to their exact source text.
 */
export const transactionSchema = z.looseObject({
  id: exactInteger,
  date: dateTimeString,
  amount: exactNumber,
  balance_after: exactNumber,
  details: z.string().nullable(),
  status: z.string().min(1),
  type: z.number().int(),
  show_invoice: z.boolean(),
});
/** A ledger line as validated (exact numbers as their source text). */
export type Transaction = z.infer<typeof transactionSchema>;
