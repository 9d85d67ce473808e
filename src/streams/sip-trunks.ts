import { bareArraySchema, type SipTrunk, STREAM_PERMISSIONS, sipTrunkSchema } from "../platform/index.js";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<SipTrunk>();

/** The columns of `platform.sip_trunks`: the trunk's settings; its `access_token` is a credential and never stored. */
export const SIP_TRUNK_COLUMNS = [
  c.required("id", "bigint", (row) => row.id),
  c.required("name", "text", (row) => row.name),
  c.required("label", "text", (row) => row.label),
  c.required("callerid", "text", (row) => row.callerid),
  c.required("created_at", "timestamptz", (row) => row.created_at),
  c.required("allowed_ips", "jsonb", (row) => row.allowed_ips),
  c.required("ip_restrict", "boolean", (row) => row.ip_restrict),
  c.required("channels_restrict", "boolean", (row) => row.channels_restrict),
  c.nullable("max_channels", "integer", (row) => row.max_channels),
  c.required("cost_limit", "boolean", (row) => row.cost_limit),
  c.nullable("max_call_cost", "numeric", (row) => row.max_call_cost),
  c.nullable("call_restrict", "boolean", (row) => row.call_restrict),
  c.nullable("call_limit", "integer", (row) => row.call_limit),
  c.required("didinfo_enabled", "boolean", (row) => row.didinfo_enabled),
  c.required("rewrite_enabled", "boolean", (row) => row.rewrite_enabled),
  c.required("rewrite_prefix", "text", (row) => row.rewrite_prefix),
  c.required("rewrite_cond", "text", (row) => row.rewrite_cond),
  c.required("call_recording_enabled", "boolean", (row) => row.call_recording_enabled),
  c.required("machine_detection_enabled", "boolean", (row) => row.machine_detection_enabled),
  c.required("transcription_enabled", "boolean", (row) => row.transcription_enabled),
  c.required("transcription_threshold", "integer", (row) => row.transcription_threshold),
  c.required("host", "text", (row) => row.host),
  c.required("multiple_numbers", "boolean", (row) => row.multiple_numbers),
  c.required("encrypted_media", "boolean", (row) => row.encrypted_media),
] as const;

/** A row of `platform.sip_trunks` as readers get it. */
export type SipTrunkRow = RowOf<typeof SIP_TRUNK_COLUMNS>;

/**
 * SIP trunks: `GET /v1/trunks` (a bare array, both revisions), every run; the account's whole set,
 * so a deleted trunk disappears. The dimension that tells what a call's `sip_trunk` login is and
 * whether its calls are recorded, screened for machines and transcribed.
 */
export const sipTrunksStream = defineStream({
  name: "sip_trunks",
  permission: STREAM_PERMISSIONS.sip_trunks,
  slicing: "full_refresh",
  requests(): readonly StreamRequest[] {
    return [{ path: "/v1/trunks", query: {}, implied: {} }];
  },
  answer: { kind: "whole", envelope: bareArraySchema, rows: (body: unknown[]) => body },
  schema: sipTrunkSchema,
  columns: SIP_TRUNK_COLUMNS,
  secretFields: ["access_token"],
  table: { name: "platform.sip_trunks", key: ["id"], writeMode: "replace_all" },
});
