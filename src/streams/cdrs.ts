import { CATALOGUE, CDR_TYPES, type Cdr, type CdrType, resourcePath } from "@telecom-etl/platform";
import { columnsOf, type Implied, type RowOf } from "./columns.js";
import { windowRequestQuery } from "./resource-reading.js";
import { defineStream, type RequestContext, type Slice, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<Cdr>();

/** The direction a CDR request implies (its `type`): a programming error if it implies none. */
function directionOf(implied: Implied): CdrType {
  const direction = implied.direction;
  if (direction !== "placed" && direction !== "received") {
    throw new Error(`a CDR request must imply direction placed or received, got ${String(direction)}`);
  }
  return direction;
}

/**
 * The columns of `platform.cdrs`. A call's identity is `call_id` (API revision 2026) when present,
 * else `uuid`; `from`/`to` are reserved words in SQL, hence `from_number`/`to_number`.
 */
export const CDR_COLUMNS = [
  c.required("direction", "text", (_row, implied) => directionOf(implied)),
  c.required("uuid", "text", (row) => row.call_id ?? row.uuid),
  c.nullable("date", "timestamptz", (row) => row.date),
  c.required("from_number", "text", (row) => row.from),
  c.required("to_number", "text", (row) => row.to),
  c.required("disposition", "text", (row) => row.disposition),
  c.required("duration", "integer", (row) => row.duration),
  c.nullable("destination", "text", (row) => row.destination),
  c.nullable("per_minute", "numeric", (row) => row.per_minute),
  c.nullable("charge", "numeric", (row) => row.charge),
  c.nullable("sip_trunk", "text", (row) => row.sip_trunk),
  c.nullable("forward_fee", "numeric", (row) => row.forward_fee),
  c.nullable("parent_uuid", "text", (row) => row.parent_call_id ?? row.parent_uuid),
  c.nullable("answered_by", "text", (row) => row.answered_by),
] as const;

/** A row of `platform.cdrs` as readers get it (typed columns only). */
export type CdrRow = RowOf<typeof CDR_COLUMNS>;

/** A call the platform bills: answered, with a per-minute rate and a duration (a failed call is billed 0 by design). */
function isBillable(row: Readonly<Record<string, unknown>>): boolean {
  return (
    row.disposition === "answered" &&
    row.per_minute !== null &&
    typeof row.duration === "number" &&
    row.duration > 0
  );
}

/**
 * Call detail records: `GET /v1/cdr` (2026: `/v1/cdrs`) once per direction (the `type` parameter),
 * every disposition. The platform's `to` is an inclusive date, so a one-day window asks
 * `from=D&to=D`. Merged by (account, direction, uuid): the same call may be listed as placed and
 * as received. An answered call with a rate and a duration but no charge is counted, not zeroed.
 */
export const cdrsStream = defineStream({
  name: "cdrs",
  resource: CATALOGUE.cdrs,
  requests(slice: Slice, context: RequestContext): readonly StreamRequest[] {
    const window = windowRequestQuery("cdrs", CATALOGUE.cdrs, slice);
    return CDR_TYPES.map((type) => ({
      path: resourcePath(CATALOGUE.cdrs, context.revision),
      query: { ...window, type, disposition: "all" },
      implied: { direction: type },
    }));
  },
  columns: CDR_COLUMNS,
  table: {
    name: "platform.cdrs",
    key: ["direction", "uuid"],
    writeMode: "merge",
    windowColumn: "date",
    partitionedByMonth: true,
  },
  qualityChecks: [
    {
      name: "missing_charge",
      description: "answered calls with a per-minute rate and a duration but no charge",
      test: (row) => isBillable(row) && row.charge === null,
      billable: isBillable,
    },
  ],
});
