import { z } from "zod";
import { dateTimeString, decimalString, paginationSchema } from "./common.js";

/** Dispositions a CDR row carries. */
export const CDR_DISPOSITIONS = ["answered", "noanswer", "busy", "failed"] as const;
/** A CDR disposition. */
export type CdrDisposition = (typeof CDR_DISPOSITIONS)[number];

/** Values of the `disposition` filter of `GET /v1/cdr` (`all` = no filter). */
export const CDR_DISPOSITION_FILTERS = [...CDR_DISPOSITIONS, "all"] as const;
/** A `disposition` query value. */
export type CdrDispositionFilter = (typeof CDR_DISPOSITION_FILTERS)[number];

/** Values of the required `type` query parameter of `GET /v1/cdr`. */
export const CDR_TYPES = ["placed", "received"] as const;
/** Direction of a CDR as the `type` query parameter names it. */
export type CdrType = (typeof CDR_TYPES)[number];

/** Values of `answered_by`. */
export const ANSWERED_BY = ["human", "machine"] as const;

/** One call detail record as `GET /v1/cdr` lists it (no `recording_url`). */
export const cdrSchema = z.looseObject({
  date: dateTimeString.nullable(),
  from: z.string(),
  to: z.string(),
  disposition: z.enum(CDR_DISPOSITIONS),
  duration: z.number().int(),
  destination: z.string().nullable(),
  per_minute: decimalString.nullable(),
  charge: decimalString.nullable(),
  sip_trunk: z.string().nullable(),
  /** Present on inbound calls forwarded to PSTN only. */
  forward_fee: decimalString.optional(),
  uuid: z.string().min(1),
  parent_uuid: z.string().nullable(),
  answered_by: z.enum(ANSWERED_BY).nullable(),
});
/** A CDR row of the list endpoint. */
export type Cdr = z.infer<typeof cdrSchema>;

/** `GET /v1/cdr/{uuid}`: the CDR plus `recording_url`. */
export const cdrDetailSchema = cdrSchema.extend({ recording_url: z.string().nullable() });
/** A single CDR with its recording URL. */
export type CdrDetail = z.infer<typeof cdrDetailSchema>;

/** `GET /v1/cdr` response; items are checked one by one by the loader, so they stay `unknown` here. */
export const cdrListResponseSchema = z.looseObject({
  items: z.array(z.unknown()),
  pagination: paginationSchema,
});
/** Envelope of `GET /v1/cdr`. */
export type CdrListResponse = z.infer<typeof cdrListResponseSchema>;
