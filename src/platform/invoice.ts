import { z } from "zod";
import { dateString, decimalString, paginationSchema } from "./common.js";

/** One monthly statement. */
export const invoiceSchema = z.looseObject({
  id: z.number().int(),
  from_date: dateString,
  to_date: dateString,
  amount: decimalString,
});
/** An invoice row. */
export type Invoice = z.infer<typeof invoiceSchema>;

/** `GET /v1/billing/invoices` response; `is_empty` is true for an empty list. */
export const invoicesResponseSchema = z.looseObject({
  is_empty: z.boolean(),
  invoices: z.array(z.unknown()),
  pagination: paginationSchema,
});
/** Envelope of the invoices list. */
export type InvoicesResponse = z.infer<typeof invoicesResponseSchema>;
