import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import type { Cdr } from "@telecom-etl/platform/cdr.js";
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
 * Which call-id fields a CDR carries: `uuid`/`parent_uuid` (revision 2024), `both` (2026: `call_id`
 * and `parent_call_id` right after them, same values), or `call_id`/`parent_call_id` only (2026
 * without the deprecated fields).
 */
export const CDR_ID_FIELDS = ["uuid", "both", "call_id"] as const;
/** A CDR id layout. */
export type CdrIdFields = (typeof CDR_ID_FIELDS)[number];

/** The id layout of an API revision. */
export function cdrIdFieldsOf(revision: ApiRevision, dropDeprecated: boolean): CdrIdFields {
  if (revision === "2024") return "uuid";
  return dropDeprecated ? "call_id" : "both";
}

/** The fields before the ids, up to and including the comma after them. */
function head(call: CdrCall): string {
  const forward = call.forwardFeeMicros === null ? "" : `,"forward_fee":${money(call.forwardFeeMicros)}`;
  return (
    `{"date":"${formatCdrDate(call.startMs)}","from":${plain(call.from)},"to":${plain(call.to)},` +
    `"disposition":"${call.disposition}","duration":${call.duration},"destination":${str(call.destination)},` +
    `"per_minute":${money(call.perMinuteMicros)},"charge":${money(call.chargeMicros)},"sip_trunk":${plain(call.sipTrunk)}` +
    `${forward},`
  );
}

const tail = (call: CdrCall): string => `,"answered_by":${plain(call.answeredBy)}}`;

/**
 * The list-endpoint JSON of a call per id layout, written by hand in a fixed key order (this is
 * the hot path of serving; bytes are identical to `JSON.stringify` of the same object).
 */
const SERIALIZERS: Readonly<Record<CdrIdFields, (call: CdrCall) => string>> = {
  uuid: (call) => `${head(call)}"uuid":"${call.uuid}","parent_uuid":${plain(call.parentUuid)}${tail(call)}`,
  both: (call) => {
    const parent = plain(call.parentUuid);
    return (
      `${head(call)}"uuid":"${call.uuid}","call_id":"${call.uuid}",` +
      `"parent_uuid":${parent},"parent_call_id":${parent}${tail(call)}`
    );
  },
  call_id: (call) =>
    `${head(call)}"call_id":"${call.uuid}","parent_call_id":${plain(call.parentUuid)}${tail(call)}`,
};

/** The serializer of CDR list rows for an id layout. */
export function cdrSerializer(ids: CdrIdFields): (call: CdrCall) => string {
  return SERIALIZERS[ids];
}

/** The list-endpoint JSON of a call as revision 2024 serves it. */
export const serializeCdr: (call: CdrCall) => string = SERIALIZERS.uuid;

/** The CDR object as `GET /v1/cdr` (2024) lists it (the parsed form of {@link serializeCdr}). */
export function cdrBody(call: CdrCall): Cdr {
  return JSON.parse(serializeCdr(call)) as Cdr;
}

/** The single-CDR JSON (`GET /v1/cdr/{uuid}`, `GET /v1/cdrs/{call_id}`): the list JSON plus `recording_url`. */
export function serializeCdrDetail(listJson: string, call: CdrCall): string {
  return `${listJson.slice(0, -1)},"recording_url":${JSON.stringify(call.recordingUrl)}}`;
}

/** Appends a field to a serialized JSON object (used by the truth export for `direction`). */
export function appendJsonField(json: string, name: string, value: unknown): string {
  return `${json.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`;
}
