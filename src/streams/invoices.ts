import { type Invoice, invoiceSchema, STREAM_PERMISSIONS } from "../platform/index.js";
import type { StreamDefinition, StreamRequest } from "./stream-definition.js";

/**
 * Monthly statements: `GET /v1/billing/invoices`, every page on every run (full refresh), merged by
 * (account, id). `is_empty: true` is a valid empty answer, whatever `invoices` holds.
 */
export const invoicesStream: StreamDefinition<typeof invoiceSchema> = {
  name: "invoices",
  permission: STREAM_PERMISSIONS.invoices,
  slicing: "full_refresh",
  requests(): readonly StreamRequest[] {
    return [{ path: "/v1/billing/invoices", query: {}, implied: {} }];
  },
  itemsField: "invoices",
  isEmptyAnswer: (body) => body.is_empty === true,
  schema: invoiceSchema,
  table: "platform.invoices",
  columns: [
    { name: "id", pgType: "bigint" },
    { name: "from_date", pgType: "date" },
    { name: "to_date", pgType: "date" },
    { name: "amount", pgType: "numeric" },
  ],
  key: ["_account", "id"],
  writeMode: "merge",
  toRow(row: Invoice) {
    return { id: row.id, from_date: row.from_date, to_date: row.to_date, amount: row.amount };
  },
};
