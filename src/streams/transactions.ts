import { CATALOGUE, resourcePath, type Transaction } from "@telecom-etl/platform";
import { columnsOf, type Implied, type RowOf } from "./columns.js";
import { windowRequestQuery } from "./resource-reading.js";
import { defineStream, type RequestContext, type Slice, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<Transaction>();

/** The ledger account a request implies: a programming error if it implies none. */
function ledgerAccountOf(implied: Implied): string {
  const account = implied.ledger_account;
  if (account === undefined || account === "") {
    throw new Error("a transactions request must imply ledger_account");
  }
  return account;
}

/**
 * The columns of `platform.transactions`. `ledger_account` is the warehouse account whose ledger a
 * line is (the account's own name, or `<account>-sub-<id>` for a sub-account's, as the fan-out
 * names it) and `sub_organization_id` the sub-account's id (null for the account's own ledger);
 * both come from the request. `id`, `amount` and `balance_after` are the source text of the JSON
 * numbers, so `bigint` and `numeric` get them exactly.
 */
export const TRANSACTION_COLUMNS = [
  c.required("ledger_account", "text", (_row, implied) => ledgerAccountOf(implied)),
  c.nullable("sub_organization_id", "bigint", (_row, implied) => implied.sub_organization_id ?? null),
  c.required("id", "bigint", (row) => row.id),
  c.required("date", "timestamptz", (row) => row.date),
  c.required("amount", "numeric", (row) => row.amount),
  c.required("balance_after", "numeric", (row) => row.balance_after),
  c.nullable("details", "text", (row) => row.details),
  c.required("status", "text", (row) => row.status),
  c.required("type", "integer", (row) => row.type),
  c.required("show_invoice", "boolean", (row) => row.show_invoice),
] as const;

/** A row of `platform.transactions` as readers get it (typed columns only). */
export type TransactionRow = RowOf<typeof TRANSACTION_COLUMNS>;

/**
 * The billing ledger, by UTC day of `date`: an account's own
 * (`GET /v1/billing/transactions?from_date=D&to_date=D`, `to_date` inclusive like the CDRs' `to`);
 * for a sub-account the fan-out reads, its ledger at
 * `GET /v1/sub-organizations/{id}/billing/transactions` with the master's key
 * (`readWithMasterKey`), under the sub-account's own name and windows, so a sub-account added to
 * the config reads its ledger from `start_date`. Merged by (account, ledger_account, id). A line's
 * status changes after it is first listed (Pending, Committed, Reverted), so a window settles like
 * CDRs. Unknown type codes and statuses are kept; `amount` must be a JSON number (a string, null or
 * missing amount is a reject).
 */
export const transactionsStream = defineStream({
  name: "transactions",
  resource: CATALOGUE.transactions,
  readWithMasterKey: true,
  requests(slice: Slice, context: RequestContext): readonly StreamRequest[] {
    const query = windowRequestQuery("transactions", CATALOGUE.transactions, slice);
    const id = context.subAccountId;
    if (id === undefined) {
      const path = resourcePath(CATALOGUE.transactions, context.revision);
      return [{ path, query, implied: { ledger_account: context.account } }];
    }
    const path = resourcePath(CATALOGUE.sub_account_transactions, context.revision, [String(id)]);
    return [{ path, query, implied: { ledger_account: context.account, sub_organization_id: String(id) } }];
  },
  columns: TRANSACTION_COLUMNS,
  table: {
    name: "platform.transactions",
    key: ["ledger_account", "id"],
    writeMode: "merge",
    windowColumn: "date",
    partitionedByMonth: true,
  },
});
