import {
  type CdrDetail,
  cdrDetailSchema,
  objectAnswerSchema,
  STREAM_PERMISSIONS,
} from "../platform/index.js";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<CdrDetail>();

/** The columns of `platform.recordings`. */
export const RECORDING_COLUMNS = [
  c.required("uuid", "text", (row) => row.call_id ?? row.uuid),
  c.nullable("date", "timestamptz", (row) => row.date),
  c.nullable("recording_url", "text", (row) => row.recording_url),
] as const;

/** A row of `platform.recordings` as readers get it. */
export type RecordingRow = RowOf<typeof RECORDING_COLUMNS>;

/** The single-CDR path of each API revision (the only answer that carries `recording_url`). */
const CDR_PATH = { "2024": "/v1/cdr", "2026": "/v1/cdrs" } as const;

/**
 * Call recordings: a lookup child of CDRs, asked once per answered call on a trunk (placed) or
 * number (received) with recording on: `GET /v1/cdr/{uuid}` (2026: `/v1/cdrs/{call_id}`), whose
 * `recording_url` is stored. 404 → none. Turn it off by leaving it out of `streams`.
 */
export const recordingsStream = defineStream({
  name: "recordings",
  permission: STREAM_PERMISSIONS.recordings,
  slicing: "lookup",
  revisionDependent: true,
  lookup: {
    candidates: "call_recordings",
    trackedKind: "recording",
    state: (status) => (status === 404 ? "none" : status === 202 ? "pending" : "final"),
  },
  requests(slice, context): readonly StreamRequest[] {
    if (slice.kind !== "ids") return [];
    return slice.items.map((item) => ({
      path: `${CDR_PATH[context.revision]}/${encodeURIComponent(item.id)}`,
      query: {},
      implied: { source: item.implied.source ?? "call" },
      lookupId: item.id,
    }));
  },
  answer: { kind: "whole", envelope: objectAnswerSchema, rows: (body: object) => [body] },
  schema: cdrDetailSchema,
  columns: RECORDING_COLUMNS,
  table: { name: "platform.recordings", key: ["uuid"], writeMode: "merge" },
});
