/** Platform CDRs as a test writes them, and the load rows the loader makes of them. */
import { cdrSchema } from "@telecom-etl/platform";
import { cdrsStream } from "../../src/streams/cdrs.js";
import { type LoadRow, toLoadRow } from "../../src/streams/load-row.js";

/** An answered, charged CDR of 2026-08-01 with id `uuid`, as the API sends it; `overrides` replace fields. */
export function cdr(uuid: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    date: "2026-08-01T10:00:00Z",
    from: "15551230000",
    to: "15559870000",
    disposition: "answered",
    duration: 61,
    destination: "United States",
    per_minute: "0.0100",
    charge: "0.0200",
    sip_trunk: "trunk1",
    uuid,
    parent_uuid: null,
    answered_by: "human",
    ...overrides,
  };
}

/** The load rows of `raws`, read as CDRs of `direction`. */
export function cdrRows(raws: readonly Record<string, unknown>[], direction = "placed"): LoadRow[] {
  return raws.map((raw) => toLoadRow(cdrsStream, cdrSchema.parse(raw), { direction }));
}
