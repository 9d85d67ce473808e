import { formatUnits, numericText } from "./ledger-decimal.js";
import { ledgerLines } from "./ledger-list.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { formatCdrDate } from "./serialize-cdr.js";
import type { TruthQuery } from "./truth-query.js";

/**
 * `GET /_sandbox/truth/transactions?account=…&from&to`: the account's ledger lines dated in the
 * range and visible now, as served, except that the exact numbers are JSON strings: `id` its
 * digits, `amount` and `balance_after` the text PostgreSQL's `numeric` prints for the served number
 * (`1e-7` is `"0.0000001"`, `-1.50` stays `"-1.50"`), so a test can compare them as text and a float
 * anywhere on the way shows. Plus `product`: the invoice book's kind of charge the line bills, or
 * null for a line with no usage behind it (top-ups, adjustments, 10DLC fees, reverted duplicates).
 */
export function transactionTruthLines(runtime: SandboxRuntime, query: TruthQuery): string[] {
  const ask = {
    runtime,
    account: query.account,
    fromMs: query.fromMs,
    untilMs: query.toMs + DAY_MS,
    nowMs: query.nowMs,
  };
  return ledgerLines(ask).map(({ line, balanceUnits, status }) =>
    JSON.stringify({
      id: line.id.toString(),
      date: formatCdrDate(line.atMs),
      amount: numericText(line.amountText),
      balance_after: formatUnits(balanceUnits),
      details: line.details,
      status,
      type: line.type,
      show_invoice: line.showInvoice,
      product: line.product,
    }),
  );
}
