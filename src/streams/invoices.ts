import { CATALOGUE, type Invoice } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream } from "./stream-definition.js";

const c = columnsOf<Invoice>();

/** The columns of `platform.invoices`. */
export const INVOICE_COLUMNS = [
  c.required("id", "bigint", (row) => row.id),
  c.required("from_date", "date", (row) => row.from_date),
  c.required("to_date", "date", (row) => row.to_date),
  c.required("amount", "numeric", (row) => row.amount),
] as const;

/** A row of `platform.invoices` as readers get it (typed columns only). */
export type InvoiceRow = RowOf<typeof INVOICE_COLUMNS>;

/**
 * Monthly statements: `GET /v1/billing/invoices`, every page on every run (full refresh), merged by
 * (account, id). `is_empty: true` is a valid empty answer, whatever `invoices` holds.
 */
export const invoicesStream = defineStream({
  name: "invoices",
  resource: CATALOGUE.invoices,
  columns: INVOICE_COLUMNS,
  table: { name: "platform.invoices", key: ["id"], writeMode: "merge" },
});
