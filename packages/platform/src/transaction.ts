import { z } from "zod";
import { dateTimeString } from "./common.js";
import { exactInteger, exactNumber } from "./exact-number.js";

/**
 * The billing ledger (platform-facts.md "Billing transactions"): `GET /v1/billing/transactions`
 * (the account's own) and `GET /v1/sub-organizations/{id}/billing/transactions` (a sub-account's,
 * read with the master's key). `amount` and `balance_after` are JSON numbers that must stay exact,
 * and `id` is an int64: the three are parsed from their source text (see exact-number.ts).
 */

/**
 * The fields of a transaction the platform writes as JSON numbers that must stay exact. Status and
 * type code are open sets (unknown ones are kept); what each documented type code bills is the dbt
 * seed `ledger_transaction_types` (from platform-facts.md).
 */
export const TRANSACTION_EXACT_NUMBERS = ["id", "amount", "balance_after"] as const;

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
