import { type CompiledQuery, type Kysely, sql } from "kysely";
import { sliceLabel } from "../streams/slice-label.js";
import type { Slice } from "../streams/stream-definition.js";
import type { Database } from "./database.js";

/** A row that failed validation, as the platform sent it, with the zod issues. */
export interface RejectInput {
  readonly raw: unknown;
  readonly issues: unknown;
}

/** A stored reject. */
export interface RejectRecord {
  readonly id: number;
  readonly runId: number | null;
  readonly account: string;
  readonly stream: string;
  /** Slice label (`2026-08-01..2026-08-02` or `full`); `parseSliceLabel` turns it back into a Slice. */
  readonly slice: string;
  readonly raw: unknown;
  readonly issues: unknown;
  readonly receivedAt: Date;
  readonly replayedAt: Date | null;
}

/**
 * One INSERT of every reject of a slice (sent as one JSON array, so any number fits in one
 * statement), compiled to run on a transaction's client. Null when there is nothing to insert.
 */
export function insertRejectsQuery(
  db: Kysely<Database>,
  input: { runId: number; account: string; stream: string; slice: Slice; rejects: readonly RejectInput[] },
): CompiledQuery | null {
  if (input.rejects.length === 0) return null;
  const payload = JSON.stringify(
    input.rejects.map((r) => ({ raw: r.raw ?? null, issues: r.issues ?? null })),
  );
  return sql`
    INSERT INTO etl.rejects (run_id, account, stream, slice, raw, issues)
    SELECT ${input.runId}::bigint, ${input.account}, ${input.stream}, ${sliceLabel(input.slice)},
           r -> 'raw', r -> 'issues'
    FROM jsonb_array_elements(${payload}::jsonb) WITH ORDINALITY AS e(r, n)
    ORDER BY n`.compile(db);
}

type RejectRow = {
  id: number;
  run_id: number | null;
  account: string;
  stream: string;
  slice: string;
  raw: unknown;
  issues: unknown;
  received_at: Date;
  replayed_at: Date | null;
};

function toRecord(row: RejectRow): RejectRecord {
  return {
    id: row.id,
    runId: row.run_id,
    account: row.account,
    stream: row.stream,
    slice: row.slice,
    raw: row.raw,
    issues: row.issues,
    receivedAt: new Date(row.received_at),
    replayedAt: row.replayed_at === null ? null : new Date(row.replayed_at),
  };
}

function selectRejects(db: Kysely<Database>) {
  return db
    .selectFrom("etl.rejects")
    .select(["id", "run_id", "account", "stream", "slice", "raw", "issues", "received_at", "replayed_at"]);
}

/** The newest `limit` rejects (replayed ones included), optionally of one stream and/or account. */
export async function listRejects(
  db: Kysely<Database>,
  options: { stream?: string; account?: string; limit: number; pendingOnly?: boolean },
): Promise<RejectRecord[]> {
  let query = selectRejects(db);
  if (options.stream) query = query.where("stream", "=", options.stream);
  if (options.account) query = query.where("account", "=", options.account);
  if (options.pendingOnly) query = query.where("replayed_at", "is", null);
  const rows = await query.orderBy("id", "desc").limit(options.limit).execute();
  return (rows as RejectRow[]).map(toRecord);
}

/** Rejects not replayed yet, oldest first: what `rejects replay` re-validates. */
export async function pendingRejects(
  db: Kysely<Database>,
  options: { stream?: string; account?: string } = {},
): Promise<RejectRecord[]> {
  let query = selectRejects(db).where("replayed_at", "is", null);
  if (options.stream) query = query.where("stream", "=", options.stream);
  if (options.account) query = query.where("account", "=", options.account);
  const rows = await query.orderBy("id").execute();
  return (rows as RejectRow[]).map(toRecord);
}

/** The UPDATE marking rejects `ids` replayed, compiled (null when there are none). */
export function markReplayedQuery(db: Kysely<Database>, ids: readonly number[]): CompiledQuery | null {
  if (ids.length === 0) return null;
  return db
    .updateTable("etl.rejects")
    .set({ replayed_at: sql<Date>`now()` })
    .where(sql<boolean>`id = any(${[...ids]}::bigint[])`)
    .where("replayed_at", "is", null)
    .compile();
}

/** Marks rejects `ids` replayed (they loaded with the current schemas); returns how many changed. */
export async function markReplayed(db: Kysely<Database>, ids: readonly number[]): Promise<number> {
  const query = markReplayedQuery(db, ids);
  if (!query) return 0;
  const result = await db.executeQuery(query);
  return Number(result.numAffectedRows ?? 0);
}
