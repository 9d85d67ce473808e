import { z } from "zod";
import { decimalString } from "./common.js";

/** States of an asynchronous validation request. */
export const VALIDATION_STATUSES = ["in progress", "success"] as const;

/**
 * One number's validation result. Which fields are present depends on the request's type, so
 * only `phone_number` is required; present fields are type-checked. `number_type` is an open label.
 */
export const numberValidationResultSchema = z.looseObject({
  phone_number: z.string(),
  valid: z.boolean().optional(),
  country_code: z.string().length(2).optional(),
  e164_format: z.string().optional(),
  national_format: z.string().optional(),
  ported: z.boolean().optional(),
  mcc: z.string().optional(),
  mnc: z.string().optional(),
  number_type: z.string().optional(),
  carrier_name: z.string().optional(),
  risky_destination: z.boolean().optional(),
  unallocated_range: z.boolean().optional(),
  reachable: z.boolean().optional(),
  roaming: z.boolean().optional(),
  timezone: z.string().optional(),
  charge: decimalString.optional(),
  error_code: z.string().optional(),
});
/** A number validation result item. */
export type NumberValidationResult = z.infer<typeof numberValidationResultSchema>;

/** `GET /v1/validation/{uuid}` body: `in progress` with `pending > 0` until every number is done. */
export const validationResponseSchema = z.looseObject({
  status: z.enum(VALIDATION_STATUSES),
  pending: z.number().int(),
  count: z.number().int(),
  items: z.array(numberValidationResultSchema),
});
/** A validation request's results. */
export type ValidationResponse = z.infer<typeof validationResponseSchema>;
