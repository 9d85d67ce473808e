import { z } from "zod";
import { dateString, decimalString } from "./common.js";

/** One monthly statement. */
export const invoiceSchema = z.looseObject({
  id: z.number().int(),
  from_date: dateString,
  to_date: dateString,
  amount: decimalString,
});
/** An invoice row. */
export type Invoice = z.infer<typeof invoiceSchema>;
