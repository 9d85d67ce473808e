import { CDR_TYPES, type Cdr, cdrSchema, STREAM_PERMISSIONS } from "../platform/index.js";
import { lastDayOf, windowOf } from "./slice-label.js";
import type { Slice, StreamDefinition, StreamRequest } from "./stream-definition.js";

/**
 * Call detail records: `GET /v1/cdr` once per direction (the `type` parameter), every disposition.
 * The platform's `to` is an inclusive date, so a one-day window asks `from=D&to=D`. Merged by
 * (account, direction, uuid): the same uuid may be listed as placed and as received.
 */
export const cdrsStream: StreamDefinition<typeof cdrSchema> = {
  name: "cdrs",
  permission: STREAM_PERMISSIONS.cdrs,
  slicing: "date_window",
  requests(slice: Slice): readonly StreamRequest[] {
    const window = windowOf(slice, "cdrs");
    return CDR_TYPES.map((type) => ({
      path: "/v1/cdr",
      query: { from: window.start, to: lastDayOf(window), type, disposition: "all" },
      implied: { direction: type },
    }));
  },
  itemsField: "items",
  schema: cdrSchema,
  table: "platform.cdrs",
  columns: [
    { name: "direction", pgType: "text" },
    { name: "uuid", pgType: "text" },
    { name: "date", pgType: "timestamptz" },
    { name: "from_number", pgType: "text" },
    { name: "to_number", pgType: "text" },
    { name: "disposition", pgType: "text" },
    { name: "duration", pgType: "integer" },
    { name: "destination", pgType: "text" },
    { name: "per_minute", pgType: "numeric" },
    { name: "charge", pgType: "numeric" },
    { name: "sip_trunk", pgType: "text" },
    { name: "forward_fee", pgType: "numeric" },
    { name: "parent_uuid", pgType: "text" },
    { name: "answered_by", pgType: "text" },
  ],
  key: ["_account", "direction", "uuid"],
  writeMode: "merge",
  windowColumn: "date",
  toRow(row: Cdr, implied) {
    const direction = implied.direction;
    if (direction !== "placed" && direction !== "received") {
      throw new Error(`a CDR request must imply direction placed or received, got ${String(direction)}`);
    }
    return {
      direction,
      uuid: row.uuid,
      date: row.date,
      from_number: row.from,
      to_number: row.to,
      disposition: row.disposition,
      duration: row.duration,
      destination: row.destination,
      per_minute: row.per_minute,
      charge: row.charge,
      sip_trunk: row.sip_trunk,
      forward_fee: row.forward_fee ?? null,
      parent_uuid: row.parent_uuid,
      answered_by: row.answered_by,
    };
  },
};
