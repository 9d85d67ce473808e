import { CATALOGUE, type Recording } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream } from "./stream-definition.js";

const c = columnsOf<Recording>();

/** The columns of `platform.recordings`; `from`/`to` become `from_number`/`to_number`. */
export const RECORDING_COLUMNS = [
  c.required("id", "bigint", (row) => row.id),
  c.required("created_at", "timestamptz", (row) => row.created_at),
  c.required("duration", "integer", (row) => row.duration),
  c.required("from_number", "text", (row) => row.from),
  c.required("to_number", "text", (row) => row.to),
  c.required("call_uuid", "text", (row) => row.call_uuid),
  c.required("url", "text", (row) => row.url),
] as const;

/** A row of `platform.recordings` as readers get it. */
export type RecordingRow = RowOf<typeof RECORDING_COLUMNS>;

/**
 * Call recordings: `GET /v1/recordings?from_date=D&to_date=E` (both API revisions) per UTC window
 * of `created_at` (the end of the call); `to_date` is read as an inclusive day like the CDR list's
 * `to`, so a one-day window asks `from_date=D&to_date=D`. A page of many at a time (`per_page`
 * 100), never one request per call. Merged by the platform's recording `id`. A recording is listed
 * when its call's CDR is, and CDRs arrive up to two days late, so a window settles like CDRs:
 * re-read until read `settle_hours` after its end. Turn it off by leaving it out of `streams`.
 */
export const recordingsStream = defineStream({
  name: "recordings",
  resource: CATALOGUE.recordings,
  columns: RECORDING_COLUMNS,
  table: {
    name: "platform.recordings",
    key: ["id"],
    writeMode: "merge",
    windowColumn: "created_at",
    partitionedByMonth: true,
  },
});
