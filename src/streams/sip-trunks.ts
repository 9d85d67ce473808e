import { CATALOGUE, type SipTrunkSummary } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream } from "./stream-definition.js";

const c = columnsOf<SipTrunkSummary>();

/**
 * The columns of `platform.sip_trunks`: the trunk summary `GET /v1/trunks` lists, with the
 * month-to-date outbound `talk_time` and `charge` as of the read; its `access_token` is a credential
 * and never stored.
 */
export const SIP_TRUNK_COLUMNS = [
  c.required("id", "bigint", (row) => row.id),
  c.required("name", "text", (row) => row.name),
  c.required("label", "text", (row) => row.label),
  c.nullable("callerid", "text", (row) => row.callerid),
  c.required("auth_method", "text", (row) => row.auth_method),
  c.nullable("host_request", "jsonb", (row) => row.host_request),
  c.required("status", "text", (row) => row.status),
  c.required("charge", "numeric", (row) => row.charge),
  c.required("talk_time", "integer", (row) => row.talk_time),
  c.required("passthrough", "boolean", (row) => row.passthrough),
  c.required("multiple_numbers", "boolean", (row) => row.multiple_numbers),
  c.required("encrypted_media", "boolean", (row) => row.encrypted_media),
  c.required("call_recording_enabled", "boolean", (row) => row.call_recording_enabled),
  c.required("machine_detection_enabled", "boolean", (row) => row.machine_detection_enabled),
  c.required("transcription_enabled", "boolean", (row) => row.transcription_enabled),
  c.required("transcription_threshold", "integer", (row) => row.transcription_threshold),
] as const;

/** A row of `platform.sip_trunks` as readers get it. */
export type SipTrunkRow = RowOf<typeof SIP_TRUNK_COLUMNS>;

/**
 * SIP trunks: `GET /v1/trunks` (both revisions), `{"sip_trunks": [...] | null, "pagination"}`,
 * paged, every run; the account's whole set, so a deleted trunk disappears. The dimension that tells
 * what a call's `sip_trunk` login is and whether its calls are recorded, screened for machines and
 * transcribed. `"sip_trunks": null` is read as no trunks (the table loses the account's trunks), and
 * counted as `null_list_read_as_empty` with a warning so an operator sees it; a `null` list whose
 * `pagination.total` says there are trunks fails the completeness check instead.
 */
export const sipTrunksStream = defineStream({
  name: "sip_trunks",
  resource: CATALOGUE.sip_trunks,
  columns: SIP_TRUNK_COLUMNS,
  secretFields: ["access_token"],
  table: { name: "platform.sip_trunks", key: ["id"], writeMode: "replace_all" },
});
