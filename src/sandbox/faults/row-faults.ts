import { hash32, unitHash } from "../prng.js";
import type { ListStream } from "../routes/page-body.js";
import { type FaultProfile, ROW_FAULTS, type RowFault } from "./fault-profile.js";

/** Where a row lives: the key of its seeded corruption decision. */
export interface RowIdentity {
  readonly stream: ListStream;
  readonly account: number;
  readonly day: number;
  readonly index: number;
}

/** Whether the profile corrupts any row at all (lets the hot path skip hashing). */
export function corruptsRows(profile: FaultProfile): boolean {
  return ROW_FAULTS.some((fault) => profile.rows[fault] > 0);
}

/**
 * The corruption of a row, or null. Depends only on the fault seed and the row's identity, never on
 * the request, so a retried request corrupts exactly the same rows.
 */
export function rowFaultOf(profile: FaultProfile, seed: number, row: RowIdentity): RowFault | null {
  let u = unitHash(seed, "row-fault", row.stream, row.account, row.day, row.index);
  for (const fault of ROW_FAULTS) {
    u -= profile.rows[fault];
    if (u < 0) return fault;
  }
  return null;
}

/** True for corruptions a loader must reject; extra unknown fields are valid (kept in `_extra`). */
export function isRejected(fault: RowFault): boolean {
  return fault !== "extraField";
}

type Json = Record<string, unknown>;

const CORRUPT: Record<ListStream, Record<RowFault, (row: Json, salt: number) => void>> = {
  cdrs: {
    wrongType: (row) => {
      row.duration = String(row.duration);
    },
    missingField: (row, salt) => {
      delete row[["uuid", "disposition", "from"][salt % 3]!];
    },
    unknownEnum: (row) => {
      row.disposition = "voicemail";
    },
    extraField: (row, salt) => {
      row.carrier_trace_id = `ctx-${salt.toString(16)}`;
      row.billing_zone = salt % 7;
    },
  },
  short_link_metrics: {
    wrongType: (row) => {
      row.latitude = String(row.latitude);
    },
    missingField: (row, salt) => {
      delete row[["link_hash", "created_at"][salt % 2]!];
    },
    // No closed set in a short-link metric: an id of the wrong type stands in for an unknown enum.
    unknownEnum: (row) => {
      row.user_id = `u${String(row.user_id)}`;
    },
    extraField: (row, salt) => {
      row.referrer = `https://l.example.com/r/${salt.toString(36)}`;
    },
  },
  invoices: {
    wrongType: (row) => {
      row.amount = Number(row.amount);
    },
    missingField: (row) => {
      delete row.to_date;
    },
    unknownEnum: (row) => {
      row.id = String(row.id);
    },
    extraField: (row) => {
      row.currency = "USD";
    },
  },
};

/** Serves a corrupted copy of a row's JSON (deterministic for the row). */
export function corruptRow(identity: RowIdentity, json: string, fault: RowFault, seed: number): string {
  const row = JSON.parse(json) as Json;
  CORRUPT[identity.stream][fault](
    row,
    hash32(seed, "salt", identity.stream, identity.account, identity.day, identity.index),
  );
  return JSON.stringify(row);
}
