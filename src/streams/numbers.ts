import { CATALOGUE, type Did } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream } from "./stream-definition.js";

const c = columnsOf<Did>();

/** The columns of `platform.numbers`: an owned number, its prices, forwarding and recording/transcription settings. */
export const NUMBER_COLUMNS = [
  c.required("id", "bigint", (row) => row.id),
  c.required("number", "text", (row) => row.number),
  c.required("activation_fee", "numeric", (row) => row.activation_fee),
  c.required("monthly_fee", "numeric", (row) => row.monthly_fee),
  c.required("per_min", "numeric", (row) => row.per_min),
  c.required("city", "text", (row) => row.city),
  c.nullable("state", "text", (row) => row.state),
  c.required("country", "text", (row) => row.country),
  c.required("country_short_name", "text", (row) => row.country_short_name),
  c.required("destinations", "jsonb", (row) => row.destination),
  c.required("channels", "integer", (row) => row.channels),
  c.required("require_docs", "jsonb", (row) => row.require_docs),
  c.required("documents", "jsonb", (row) => row.documents),
  c.required("domestic_cli", "boolean", (row) => row.domestic_cli),
  c.nullable("label", "text", (row) => row.label),
  c.required("status", "text", (row) => row.status),
  c.required("seconds", "text", (row) => row.seconds),
  c.required("added", "timestamptz", (row) => row.added),
  c.required("paid_until", "date", (row) => row.paid_until),
  c.required("sms_enabled", "boolean", (row) => row.sms_enabled),
  c.nullable("sms_relay_url", "text", (row) => row.sms_relay_url),
  c.nullable("cnam", "boolean", (row) => row.cnam),
  c.required("call_recording_enabled", "boolean", (row) => row.call_recording_enabled),
  c.required("transcription_enabled", "boolean", (row) => row.transcription_enabled),
  c.required("transcription_threshold", "integer", (row) => row.transcription_threshold),
  c.nullable("free_min", "integer", (row) => row.free_min),
  c.nullable("unlimited", "boolean", (row) => row.unlimited),
  c.nullable("call_status_url", "text", (row) => row.call_status_url),
] as const;

/** A row of `platform.numbers` as readers get it. */
export type NumberRow = RowOf<typeof NUMBER_COLUMNS>;

/**
 * The account's owned numbers (DIDs): `GET /v1/mydids` (2026: `/v1/numbers`), paged, every run;
 * the account's whole set, read from `items` (the answer's `doc_types`, the document types numbers
 * may require, is not loaded). The dimension that tells where a received call went and whether it is
 * recorded and transcribed (at or above which duration).
 */
export const numbersStream = defineStream({
  name: "numbers",
  resource: CATALOGUE.numbers,
  columns: NUMBER_COLUMNS,
  table: { name: "platform.numbers", key: ["id"], writeMode: "replace_all" },
});
