import type { Cdr } from "../platform/cdr.js";
import type { CdrCall } from "./generate-cdr-day.js";
import { formatMicros } from "./money.js";

/** Formats epoch ms as the CDR `date`: ISO 8601 UTC without fractional seconds. */
export function formatCdrDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + "Z";
}

/** The CDR object as `GET /v1/cdr` lists it (fixed key order, so bytes are stable). */
export function cdrBody(call: CdrCall): Cdr {
  const body: Record<string, unknown> = {
    date: formatCdrDate(call.startMs),
    from: call.from,
    to: call.to,
    disposition: call.disposition,
    duration: call.duration,
    destination: call.destination,
    per_minute: call.perMinuteMicros === null ? null : formatMicros(call.perMinuteMicros),
    charge: call.chargeMicros === null ? null : formatMicros(call.chargeMicros),
    sip_trunk: call.sipTrunk,
  };
  if (call.forwardFeeMicros !== null) body.forward_fee = formatMicros(call.forwardFeeMicros);
  body.uuid = call.uuid;
  body.parent_uuid = call.parentUuid;
  body.answered_by = call.answeredBy;
  return body as Cdr;
}

/** The list-endpoint JSON of a call. */
export function serializeCdr(call: CdrCall): string {
  return JSON.stringify(cdrBody(call));
}

/** The single-CDR JSON (`GET /v1/cdr/{uuid}`): the list JSON plus `recording_url`. */
export function serializeCdrDetail(listJson: string, call: CdrCall): string {
  return `${listJson.slice(0, -1)},"recording_url":${JSON.stringify(call.recordingUrl)}}`;
}

/** Appends a field to a serialized JSON object (used by the truth export for `direction`). */
export function appendJsonField(json: string, name: string, value: unknown): string {
  return `${json.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`;
}
