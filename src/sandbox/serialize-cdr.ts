import type { Cdr } from "../platform/cdr.js";
import type { CdrCall } from "./generate-cdr-day.js";
import { formatMicros } from "./money.js";

const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
let cachedDay = -1;
let cachedPrefix = "";

/** Formats epoch ms as the CDR `date`: ISO 8601 UTC without fractional seconds (`2026-08-01T13:45:12Z`). */
export function formatCdrDate(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedPrefix = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  const second = Math.floor((ms - day * 86_400_000) / 1000);
  return `${cachedPrefix}${TWO[Math.floor(second / 3600)]}:${TWO[Math.floor(second / 60) % 60]}:${TWO[second % 60]}Z`;
}

const str = (value: string | null): string => (value === null ? "null" : JSON.stringify(value));
/** Quotes a value known to need no escaping (digits, uuids, trunk logins, enum labels). */
const plain = (value: string | null): string => (value === null ? "null" : `"${value}"`);
const money = (micros: number | null): string => (micros === null ? "null" : `"${formatMicros(micros)}"`);

/**
 * The list-endpoint JSON of a call, written by hand in a fixed key order (this is the hot path
 * of serving; bytes are identical to `JSON.stringify(cdrBody(call))`).
 */
export function serializeCdr(call: CdrCall): string {
  const forward = call.forwardFeeMicros === null ? "" : `,"forward_fee":${money(call.forwardFeeMicros)}`;
  return (
    `{"date":"${formatCdrDate(call.startMs)}","from":${plain(call.from)},"to":${plain(call.to)},` +
    `"disposition":"${call.disposition}","duration":${call.duration},"destination":${str(call.destination)},` +
    `"per_minute":${money(call.perMinuteMicros)},"charge":${money(call.chargeMicros)},"sip_trunk":${plain(call.sipTrunk)}` +
    `${forward},"uuid":"${call.uuid}","parent_uuid":${plain(call.parentUuid)},"answered_by":${plain(call.answeredBy)}}`
  );
}

/** The CDR object as `GET /v1/cdr` lists it (the parsed form of {@link serializeCdr}). */
export function cdrBody(call: CdrCall): Cdr {
  return JSON.parse(serializeCdr(call)) as Cdr;
}

/** The single-CDR JSON (`GET /v1/cdr/{uuid}`): the list JSON plus `recording_url`. */
export function serializeCdrDetail(listJson: string, call: CdrCall): string {
  return `${listJson.slice(0, -1)},"recording_url":${JSON.stringify(call.recordingUrl)}}`;
}

/** Appends a field to a serialized JSON object (used by the truth export for `direction`). */
export function appendJsonField(json: string, name: string, value: unknown): string {
  return `${json.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`;
}
