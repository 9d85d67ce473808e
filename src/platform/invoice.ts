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

/**
 * How a loader reads a page of `GET /v1/billing/invoices`: `is_empty: true` is a valid empty answer
 * whatever else it carries (the list or its pagination may be missing then); otherwise both must be there.
 */
export const invoicesAnswerSchema = z
  .looseObject({
    is_empty: z.boolean(),
    invoices: z.array(z.unknown()).optional(),
    pagination: paginationSchema.optional(),
  })
  .refine((body) => body.is_empty || (body.invoices !== undefined && body.pagination !== undefined), {
    message: 'expected "invoices" and "pagination" unless is_empty is true',
  });
/** A page of invoices as a loader reads it. */
export type InvoicesAnswer = z.infer<typeof invoicesAnswerSchema>;
