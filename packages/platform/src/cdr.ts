import { z } from "zod";
import { dateTimeString, decimalString } from "./common.js";

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

/**
 * The fields of a CDR row. Revision 2024 sends `uuid`/`parent_uuid`; revision 2026 adds `call_id`/
 * `parent_call_id` (same values) and may stop sending the deprecated pair, so all four are optional
 * here and {@link CALL_ID_REQUIRED} asks for one of the two ids.
 */
const cdrFields = {
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
  /** Call id (2024; deprecated in 2026). */
  uuid: z.string().min(1).optional(),
  /** Call id (2026). */
  call_id: z.string().min(1).optional(),
  parent_uuid: z.string().nullable().optional(),
  parent_call_id: z.string().nullable().optional(),
  answered_by: z.enum(ANSWERED_BY).nullable(),
};

/** A row carries a call id: `call_id` (2026) or `uuid` (2024). */
function hasCallId(row: { uuid?: string | undefined; call_id?: string | undefined }): boolean {
  return row.call_id !== undefined || row.uuid !== undefined;
}

/**
 * A row without any call id is invalid: reported on `uuid`, as a missing `uuid` was before 2026. A
 * `refine`, not a `superRefine`: the latter builds a context and a closure for every row it sees.
 */
const CALL_ID_REQUIRED = {
  path: ["uuid"],
  message: "Invalid input: expected string, received undefined (a CDR carries call_id or uuid)",
};

/** One call detail record as `GET /v1/cdr` (2024) or `GET /v1/cdrs` (2026) lists it (no `recording_url`). */
export const cdrSchema = z.looseObject(cdrFields).refine(hasCallId, CALL_ID_REQUIRED);
/** A CDR row of the list endpoint. */
export type Cdr = z.infer<typeof cdrSchema>;

/** `GET /v1/cdr/{uuid}` (2024), `GET /v1/cdrs/{call_id}` (2026): the CDR plus `recording_url`. */
export const cdrDetailSchema = z
  .looseObject({ ...cdrFields, recording_url: z.string().nullable() })
  .refine(hasCallId, CALL_ID_REQUIRED);
/** A single CDR with its recording URL. */
export type CdrDetail = z.infer<typeof cdrDetailSchema>;
