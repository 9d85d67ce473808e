import { booleanParam, optionalText, ParamError } from "./http/http-kit.js";
import { LedgerBook, type ListedLine } from "./ledger-book.js";
import type { RowSource } from "./routes/page-body.js";
import { defineSandboxList, type ListAsk } from "./sandbox-list.js";
import { DAY_MS } from "./sandbox-options.js";

/** Types `payments=true` keeps: the top-ups (credit card, admin and subscription payments). */
const PAYMENT_TYPES: readonly number[] = [19, 25, 26];

/** The ledger lines of the ask's account in its window visible at its clock, in ledger order, before filters. */
export function ledgerLines(ask: Omit<ListAsk, "query">): ListedLine[] {
  const fromDay = ask.fromMs === null ? Number.NEGATIVE_INFINITY : ask.fromMs / DAY_MS;
  const toDay = ask.untilMs === null ? Number.POSITIVE_INFINITY : ask.untilMs / DAY_MS - 1;
  return ask.runtime.ledger.listed(ask.account, fromDay, toDay, ask.nowMs);
}

/**
 * The filter of a ledger request: `type` (a type code), and on the account's own ledger
 * `details_contains` and `payments`; a sub-account's ledger ignores those two, as the platform's.
 */
function ledgerFilter(query: URLSearchParams | null, own: boolean): (listed: ListedLine) => boolean {
  if (query === null) return () => true;
  const typeText = optionalText(query, "type");
  if (typeText !== null && !/^\d+$/.test(typeText)) throw new ParamError(422, "type");
  const type = typeText === null ? null : Number(typeText);
  const details = own ? optionalText(query, "details_contains") : null;
  const paymentsOnly = own ? booleanParam(query, "payments", false) : false;
  return ({ line }) =>
    (type === null || line.type === type) &&
    (!paymentsOnly || PAYMENT_TYPES.includes(line.type)) &&
    (details === null || line.details.includes(details));
}

/** A page source over listed lines that writes only the rows a page serves (a busy day has 50,000 lines). */
function ledgerSource(lines: readonly ListedLine[]): RowSource {
  return {
    total: lines.length,
    row: (i) => {
      const listed = lines[i]!;
      return {
        json: LedgerBook.serialize(listed),
        day: Math.floor(listed.line.atMs / DAY_MS),
        index: Number(listed.line.id % 1_000_000n),
      };
    },
    chunks: (start, end) => [
      Buffer.from(lines.slice(start, end).map(LedgerBook.serialize).join(","), "latin1"),
    ],
  };
}

/**
 * The billing ledger as the sandbox serves it: the account's own (`transactions`) and a
 * sub-account's (`sub_account_transactions`, whose truth is that sub-account's `transactions`).
 * Window `from_date`/`to_date` optional. No row faults: a fault rewriting a row would read the
 * exact amounts through a float.
 */
export function ledgerList(own: boolean) {
  return defineSandboxList({
    route: "generic",
    window: "optional",
    truth: own,
    select: (ask) => ledgerSource(ledgerLines(ask).filter(ledgerFilter(ask.query, own))),
  });
}
