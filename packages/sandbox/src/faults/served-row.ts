import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import type { ListStream } from "../list-streams.js";
import { hash32 } from "../prng.js";
import { DAY_MS, parseDay } from "../sandbox-options.js";
import { type FaultProfile, type IndependentRowFault, ROW_FAULTS, type RowFault } from "./fault-profile.js";
import {
  corruptFields,
  corruptsRows,
  drawsNullCharge,
  nullsCharge,
  type RowIdentity,
  rowFaultOf,
} from "./row-faults.js";
import { applyDrift, type DriftRule } from "./schema-drift.js";

/**
 * How a list row is served under a fault profile: its seeded corruption (at most one), else a null
 * charge, then the profile's schema drift of its stream; and whether the served row is still valid
 * for the platform's schema (the truth holds it) or must be rejected.
 */

/** What changed a served row, named as the fault counters and profiles name it. */
export type RowChange = RowFault | IndependentRowFault | "drift";

/** Names of row changes in the truth export's `/malformed` lines. */
export const ROW_CHANGE_NAMES: Readonly<Record<RowChange, string>> = {
  wrongType: "wrong_type",
  missingField: "missing_field",
  unknownEnum: "unknown_enum",
  extraField: "extra_field",
  nullCharge: "null_charge",
  drift: "drift",
};

/** A row as served: its JSON and, when the profile changed it, the change and the parsed fields. */
export type ServedRow =
  | { readonly json: string; readonly change: null }
  | { readonly json: string; readonly change: RowChange; readonly fields: Readonly<Record<string, unknown>> };

/** Whether the profile changes any row of `stream` (lets the hot path skip hashing and parsing). */
export function altersRows(profile: FaultProfile, stream: ListStream): boolean {
  return (
    corruptsRows(profile) ||
    (stream === "cdrs" && profile.rows.nullCharge > 0) ||
    profile.drift.some((rule) => rule.stream === stream)
  );
}

/**
 * The row `json` as served under `profile`. A row keeps its bytes unless something changes it; a
 * changed row is written once by `JSON.stringify` (key order kept). A row both corrupted and
 * drifted is named by its corruption.
 */
export function serveRow(
  profile: FaultProfile,
  seed: number,
  identity: RowIdentity,
  json: string,
): ServedRow {
  const fault = ROW_FAULTS.some((f) => profile.rows[f] > 0) ? rowFaultOf(profile, seed, identity) : null;
  const nullCharge = fault === null && drawsNullCharge(profile, seed, identity);
  const drift = profile.drift.filter(
    (rule) => rule.stream === identity.stream && driftApplies(rule, identity.day),
  );
  if (fault === null && !nullCharge && drift.length === 0) return { json, change: null };
  const row = JSON.parse(json) as Record<string, unknown>;
  let change: RowChange | null = null;
  if (fault !== null) {
    corruptFields(identity, row, fault, seed);
    change = fault;
  } else if (nullCharge && nullsCharge(row)) {
    change = "nullCharge";
  }
  const salt = hash32(seed, "drift", identity.stream, identity.account, identity.day, identity.index);
  if (applyDrift(row, drift, salt)) change ??= "drift";
  return change === null ? { json, change } : { json: JSON.stringify(row), change, fields: row };
}

/** Whether `rule` applies to a row dated on epoch day `rowDay` (every row without `from`). */
export function driftApplies(rule: DriftRule, rowDay: number): boolean {
  return rule.from === undefined || rowDay >= parseDay(rule.from) / DAY_MS;
}

/**
 * Whether a served row is one a loader keeps: unchanged, or changed but still valid for the
 * platform's schema (a rejected row is only in the truth's `/malformed`).
 */
export function isKept(stream: ListStream, served: ServedRow): boolean {
  return served.change === null || isValidRow(stream, served.fields);
}

/** Whether a served row of `stream` passes the platform's item schema (the catalogue's, the one the loader uses). */
export function isValidRow(stream: ListStream, fields: Readonly<Record<string, unknown>>): boolean {
  return CATALOGUE[stream].item.safeParse(fields).success;
}
