import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import type { HandListStream, ListStream } from "../list-streams.js";
import { hash32, unitHash } from "../prng.js";
import { type FaultProfile, ROW_FAULTS, type RowFault } from "./fault-profile.js";
import { type Corruptions, schemaCorruptions } from "./schema-corruptions.js";

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

/** The corruptions written for each list before the scaffold; a scaffolded list's derive from its schema. */
const CORRUPT: Readonly<Record<HandListStream, Corruptions>> = {
  cdrs: {
    wrongType: (row) => {
      row.duration = String(row.duration);
    },
    missingField: (row, salt) => {
      const field = ["uuid", "disposition", "from"][salt % 3]!;
      delete row[field];
      // A missing call id is missing under both its names (2026 rows carry `call_id` too).
      if (field === "uuid") delete row.call_id;
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
  messages: {
    wrongType: (row) => {
      row.segments = String(row.segments);
    },
    missingField: (row, salt) => {
      delete row[["message_id", "status", "submitted_at"][salt % 3]!];
    },
    unknownEnum: (row) => {
      row.status = "scheduled";
    },
    extraField: (row, salt) => {
      row.api_version = "v3";
      row.route_id = salt % 97;
    },
  },
  recordings: {
    wrongType: (row) => {
      row.duration = String(row.duration);
    },
    missingField: (row, salt) => {
      delete row[["id", "call_uuid", "url"][salt % 3]!];
    },
    // No closed set in a recording: an id of the wrong type stands in for an unknown enum.
    unknownEnum: (row) => {
      row.id = `rec-${String(row.id)}`;
    },
    extraField: (row, salt) => {
      row.format = "mp3";
      row.size_bytes = 16_000 * (salt % 600);
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

const derived = new Map<ListStream, Corruptions>();

/** How the faults rewrite rows of `stream`: its own corruptions, else those its item schema gives. */
function corruptionsOf(stream: ListStream): Corruptions {
  if (Object.hasOwn(CORRUPT, stream)) return CORRUPT[stream as HandListStream];
  let found = derived.get(stream);
  if (found === undefined) {
    found = schemaCorruptions(CATALOGUE[stream].item);
    derived.set(stream, found);
  }
  return found;
}

/** Corrupts a parsed row in place (deterministic for the row). */
export function corruptFields(identity: RowIdentity, row: Json, fault: RowFault, seed: number): void {
  corruptionsOf(identity.stream)[fault](
    row,
    hash32(seed, "salt", identity.stream, identity.account, identity.day, identity.index),
  );
}

/** Serves a corrupted copy of a row's JSON (deterministic for the row). */
export function corruptRow(identity: RowIdentity, json: string, fault: RowFault, seed: number): string {
  const row = JSON.parse(json) as Json;
  corruptFields(identity, row, fault, seed);
  return JSON.stringify(row);
}

/**
 * Whether the row draws the `nullCharge` fault: a hash of its own (not the one of the faults above,
 * so it never moves the rows they hit). Only CDRs have it; {@link nullsCharge} says whether the
 * drawn row is one it applies to.
 */
export function drawsNullCharge(profile: FaultProfile, seed: number, row: RowIdentity): boolean {
  const rate = profile.rows.nullCharge;
  return (
    row.stream === "cdrs" && rate > 0 && unitHash(seed, "null-charge", row.account, row.day, row.index) < rate
  );
}

/** Serves `charge: null` on an answered CDR that was billed (a rate and a duration): the row stays valid. */
export function nullsCharge(row: Json): boolean {
  const billed =
    row.disposition === "answered" &&
    typeof row.per_minute === "string" &&
    typeof row.duration === "number" &&
    row.duration > 0 &&
    row.charge !== null;
  if (billed) row.charge = null;
  return billed;
}
