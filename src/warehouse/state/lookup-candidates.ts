/**
 * The ids lookup streams ask the platform about, and their states in `etl.tracked_requests`. A
 * lookup asks an id once per state change, never on every run: an id answered for good (`final`),
 * known to have nothing (`none`), unknown (`not_found`) or given up on (`expired`) is not proposed
 * again; a `pending` one is, until it ends or ages out. So a nightly run's lookups grow with new
 * calls, not with history.
 */
import { type CompiledQuery, type Kysely, sql } from "kysely";
import type { LookupItem } from "../../core/slices.js";
import type { Database } from "../connection/database.js";

/** Where a lookup stream's ids come from. */
export const CANDIDATE_KINDS = ["call_transcriptions", "tracked"] as const;
/**
 * `call_transcriptions`: answered calls on a trunk (placed) or number (received) with transcription
 * on, at or above its threshold, within the age limit, plus uploaded files tracked by id; `tracked`: only ids
 * tracked explicitly (validation tokens from the config or `telecom-etl track`).
 */
export type CandidateKind = (typeof CANDIDATE_KINDS)[number];

/** What a candidate query needs: the account, the tracked kind, the run's clock and the age limit. */
export interface CandidateQuery {
  readonly kind: CandidateKind;
  readonly trackedKind: string;
  readonly account: string;
  /** The run's clock (epoch ms): ages are measured from it. */
  readonly now: number;
  /** Calls older than this are not asked about, and pending ids older than this expire. */
  readonly maxAgeDays: number;
}

/** Settings of a call (its trunk for a placed call, its number for a received one), as a SQL join. */
const CALL_SETTINGS = sql`
  FROM platform.cdrs c
  LEFT JOIN platform.sip_trunks t
    ON t._account = c._account AND c.direction = 'placed' AND t.name = c.sip_trunk
  LEFT JOIN platform.numbers n
    ON n._account = c._account AND c.direction = 'received' AND n.number = c.to_number`;

/**
 * Marks `expired` the pending ids of the query's kind that aged out: a call older than the age
 * limit, or an uploaded file tracked longer ago than that. Returns how many expired.
 */
export async function expireStaleLookups(db: Kysely<Database>, query: CandidateQuery): Promise<number> {
  // Tracked ids (validation tokens) are polled until the platform says they are done.
  if (query.kind === "tracked") return 0;
  const oldest = new Date(query.now - query.maxAgeDays * 86_400_000);
  const result = await sql`
    UPDATE etl.tracked_requests r SET status = 'expired', last_seen_at = ${new Date(query.now)}
    WHERE r.kind = ${query.trackedKind} AND r.account = ${query.account} AND r.status = 'pending'
      AND (
        (r.details->>'source' = 'call' AND NOT EXISTS (
          SELECT 1 FROM platform.cdrs c
          WHERE c._account = r.account AND c.uuid = r.external_id AND c.date >= ${oldest}))
        OR (r.details->>'source' = 'file' AND r.first_seen_at < ${oldest})
      )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** The ids to ask about this run, oldest call first, each with the values its request implies (`source`). */
export async function lookupCandidates(db: Kysely<Database>, query: CandidateQuery): Promise<LookupItem[]> {
  const settled = sql`NOT EXISTS (
    SELECT 1 FROM etl.tracked_requests r
    WHERE r.kind = ${query.trackedKind} AND r.account = ${query.account} AND r.external_id = c.uuid
      AND r.status <> 'pending')`;
  const tracked = sql`
    SELECT r.external_id AS id, coalesce(r.details->>'source', 'cli') AS source, r.first_seen_at AS at
    FROM etl.tracked_requests r
    WHERE r.kind = ${query.trackedKind} AND r.account = ${query.account} AND r.status = 'pending'`;
  let text: ReturnType<typeof sql>;
  if (query.kind === "tracked") {
    text = tracked;
  } else {
    const oldest = new Date(query.now - query.maxAgeDays * 86_400_000);
    text = sql`
      SELECT c.uuid AS id, 'call' AS source, min(c.date) AS at ${CALL_SETTINGS}
      WHERE c._account = ${query.account} AND c.disposition = 'answered' AND c.date >= ${oldest}
        AND ((t.transcription_enabled AND c.duration >= t.transcription_threshold)
          OR (n.transcription_enabled AND c.duration >= n.transcription_threshold))
        AND ${settled}
      GROUP BY c.uuid
      UNION ALL
      SELECT * FROM (${tracked}) f WHERE f.source = 'file'`;
  }
  const rows = await sql<{ id: string; source: string }>`
    SELECT id, source FROM (${text}) candidates ORDER BY at NULLS LAST, id`.execute(db);
  return rows.rows.map((row) => ({ id: row.id, implied: { source: row.source } }));
}

/** An id's new state after a run asked about it. */
export interface TrackedUpdate {
  readonly id: string;
  readonly state: "pending" | "final" | "none" | "expired" | "not_found";
  readonly details: Readonly<Record<string, string>>;
}

/**
 * The upsert recording what the platform said of each id (first seen now, one more attempt),
 * compiled for the load's transaction: an id's state moves with the rows it brought.
 */
export function trackedUpdatesQuery(
  db: Kysely<Database>,
  input: { kind: string; account: string; at: Date; updates: readonly TrackedUpdate[] },
): CompiledQuery | null {
  if (input.updates.length === 0) return null;
  return db
    .insertInto("etl.tracked_requests")
    .values(
      input.updates.map((u) => ({
        kind: input.kind,
        account: input.account,
        external_id: u.id,
        status: u.state,
        attempts: 1,
        first_seen_at: input.at,
        last_seen_at: input.at,
        last_error: null,
        details: JSON.stringify(u.details),
      })),
    )
    .onConflict((oc) =>
      oc.columns(["kind", "account", "external_id"]).doUpdateSet({
        status: (eb) => eb.ref("excluded.status"),
        attempts: sql`etl.tracked_requests.attempts + 1`,
        last_seen_at: (eb) => eb.ref("excluded.last_seen_at"),
        last_error: null,
      }),
    )
    .compile();
}

/**
 * Starts tracking ids (validation tokens from the config or the CLI, uploaded files' transcription
 * requests) as `pending`; ids tracked already keep their state. Returns how many were new.
 */
export async function trackIds(
  db: Kysely<Database>,
  input: { kind: string; account: string; ids: readonly string[]; source: string; at: Date },
): Promise<number> {
  if (input.ids.length === 0) return 0;
  const result = await db
    .insertInto("etl.tracked_requests")
    .values(
      input.ids.map((id) => ({
        kind: input.kind,
        account: input.account,
        external_id: id,
        status: "pending",
        attempts: 0,
        first_seen_at: input.at,
        last_seen_at: input.at,
        details: JSON.stringify({ source: input.source }),
      })),
    )
    .onConflict((oc) => oc.columns(["kind", "account", "external_id"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Tracked ids per account, kind and state, for `status`. */
export async function trackedCounts(
  db: Kysely<Database>,
): Promise<{ account: string; kind: string; status: string; n: number }[]> {
  const rows = await db
    .selectFrom("etl.tracked_requests")
    .select(["account", "kind", "status", sql<number>`count(*)::int`.as("n")])
    .groupBy(["account", "kind", "status"])
    .orderBy("account")
    .orderBy("kind")
    .orderBy("status")
    .execute();
  return rows;
}
