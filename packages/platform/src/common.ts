import { z } from "zod";

/**
 * Building blocks shared by the platform's resource schemas. Money is a decimal string (never a
 * float); timestamps are ISO 8601 with `Z` or an offset; dates are `YYYY-MM-DD`.
 */

/** A USD amount as a decimal string, e.g. `"0.027"`; a leading minus is allowed for credits. */
export const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/, "expected a decimal string");

/** An ISO 8601 date-time with `Z` or an explicit UTC offset. */
export const dateTimeString = z.iso.datetime({ offset: true });

/** A calendar date, `YYYY-MM-DD`. */
export const dateString = z.iso.date();

/** The pagination object of every paginated list response. */
export const paginationSchema = z.looseObject({
  current_page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  total_pages: z.number().int(),
});
/** Pagination object of list responses. */
export type Pagination = z.infer<typeof paginationSchema>;

/** Error body of every non-2xx answer: `{success: false, message}` (401 adds `error: true`; validation adds `error_code`). */
export const errorBodySchema = z.looseObject({
  success: z.literal(false),
  message: z.string(),
  error: z.boolean().optional(),
  error_code: z.string().optional(),
});
/** Error body of a non-2xx answer. */
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** `{success: true}` answers (DELETE webhooks, nudge). */
export const successBodySchema = z.looseObject({ success: z.boolean() });
/** `{success}` answer. */
export type SuccessBody = z.infer<typeof successBodySchema>;

/** The 202 body of a transcription still being made. */
export const pendingBodySchema = z.looseObject({ success: z.literal(true), message: z.string() });
/** 202 pending body. */
export type PendingBody = z.infer<typeof pendingBodySchema>;

/** Exact messages of the platform's error bodies (platform-facts.md). */
export const ERROR_MESSAGES = {
  unauthorized: "Unauthorized",
  forbidden: "The service is not provisioned for your account.",
  notFound: "Record not found",
} as const;

/** The 400/422 message for a bad parameter. */
export function invalidParameterMessage(name: string): string {
  return `Missing or invalid parameter ${name}`;
}
