import { type CompiledQuery, type Kysely, sql } from "kysely";
import { type Slice, sliceLabel, WINDOW_LABEL_PATTERN, WINDOW_LABEL_SEPARATOR } from "../../core/slices.js";
import type { Database } from "../connection/database.js";

/** A row that failed validation, as the platform sent it, with the zod issues. */
export interface RejectInput {
  readonly raw: unknown;
  readonly issues: unknown;
  /** Values the request implied for the row (CDRs: `direction`); absent or empty when none. */
  readonly implied?: Readonly<Record<string, string>>;
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
  /**
   * The stored raw row as JSON text (`jsonb`'s own: a number keeps its digits), for streams whose
   * numbers must stay exact (`raw` went through `JSON.parse` and binary floats).
   */
  readonly rawText: string;
  readonly issues: unknown;
  /**
   * Values the request implied for the row, from the `implied` column; null when it implied none or
   * the reject predates that column (those kept them in `issues`: see `impliedOfReject`).
   */
  readonly implied: Readonly<Record<string, string>> | null;
  readonly receivedAt: Date;
  readonly replayedAt: Date | null;
}

/**
 * Makes the slice's pending rejects exactly the rejects of this read of it, compiled to run on a
 * transaction's client: a row rejected again keeps its id and first `received_at` (its run and
 * issues are refreshed), a row no longer rejected leaves the pending set, a new one is added, and
 * the same row on two pages is stored once. Re-reading a window (the nightly lookback) therefore
 * converges instead of piling up copies. A window's read also takes over the pending rejects of
 * the windows it covers: today's window grows by a day each run (`window_days` > 1), so a row
 * rejected under yesterday's label that loads today must not stay pending (a replay would append
 * it a second time), nor be pending under two labels. Replayed rejects are history and are never
 * touched.
 */
export function syncRejectsQuery(
  db: Kysely<Database>,
  input: { runId: number; account: string; stream: string; slice: Slice; rejects: readonly RejectInput[] },
): CompiledQuery {
  const payload = JSON.stringify(
    input.rejects.map((r) => ({
      raw: r.raw ?? null,
      issues: r.issues ?? null,
      implied: r.implied !== undefined && Object.keys(r.implied).length > 0 ? r.implied : null,
    })),
  );
  const label = sliceLabel(input.slice);
  const window = input.slice.kind === "window" ? input.slice.window : null;
  return sql`
    WITH incoming AS (
      SELECT DISTINCT ON (r -> 'raw', NULLIF(r -> 'implied', 'null'::jsonb))
             r -> 'raw' AS raw, r -> 'issues' AS issues, NULLIF(r -> 'implied', 'null'::jsonb) AS implied, n
      FROM jsonb_array_elements(${payload}::jsonb) WITH ORDINALITY AS e(r, n)
      ORDER BY r -> 'raw', NULLIF(r -> 'implied', 'null'::jsonb), n
    ),
    pending AS (
      -- A row pending under two labels (before a read took over the narrower one) is kept once.
      SELECT id, raw, implied,
             row_number() OVER (PARTITION BY raw, implied ORDER BY id) > 1 AS later_copy
      FROM etl.rejects
      WHERE account = ${input.account} AND stream = ${input.stream} AND replayed_at IS NULL
        AND (slice = ${label} OR (
          ${window !== null}::boolean AND slice ~ ${WINDOW_LABEL_PATTERN}
          AND split_part(slice, ${WINDOW_LABEL_SEPARATOR}, 1) >= ${window?.start ?? ""}
          AND split_part(slice, ${WINDOW_LABEL_SEPARATOR}, 2) <= ${window?.end ?? ""}))
    ),
    gone AS (
      DELETE FROM etl.rejects WHERE id IN (
        SELECT p.id FROM pending p
        WHERE p.later_copy
           OR NOT EXISTS (SELECT 1 FROM incoming i WHERE i.raw = p.raw AND i.implied IS NOT DISTINCT FROM p.implied)
      )
    ),
    again AS (
      UPDATE etl.rejects t SET run_id = ${input.runId}::bigint, issues = i.issues, slice = ${label}
      FROM pending p JOIN incoming i ON i.raw = p.raw AND i.implied IS NOT DISTINCT FROM p.implied
      WHERE t.id = p.id AND NOT p.later_copy
    )
    INSERT INTO etl.rejects (run_id, account, stream, slice, raw, issues, implied)
    SELECT ${input.runId}::bigint, ${input.account}, ${input.stream}, ${label}, i.raw, i.issues, i.implied
    FROM incoming i
    WHERE NOT EXISTS (SELECT 1 FROM pending p WHERE p.raw = i.raw AND p.implied IS NOT DISTINCT FROM i.implied)
    ORDER BY i.n`.compile(db);
}

type RejectRow = {
  id: number;
  run_id: number | null;
  account: string;
  stream: string;
  slice: string;
  raw: unknown;
  raw_text: string;
  issues: unknown;
  implied: unknown;
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
    rawText: row.raw_text,
    issues: row.issues,
    implied: stringRecord(row.implied),
    receivedAt: new Date(row.received_at),
    replayedAt: row.replayed_at === null ? null : new Date(row.replayed_at),
  };
}

/** The string values of a JSON object; null for anything else. */
function stringRecord(value: unknown): Readonly<Record<string, string>> | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/**
 * The values the request implied for a stored reject: its `implied` column, or for rejects stored
 * before that column existed, the `implied` its issues carried. Empty when there were none.
 */
export function impliedOfReject(
  reject: Pick<RejectRecord, "implied" | "issues">,
): Readonly<Record<string, string>> {
  if (reject.implied !== null) return reject.implied;
  if (Array.isArray(reject.issues)) {
    for (const issue of reject.issues) {
      const legacy = stringRecord((issue as { implied?: unknown } | null)?.implied ?? null);
      if (legacy !== null) return legacy;
    }
  }
  return {};
}

function selectRejects(db: Kysely<Database>) {
  return db
    .selectFrom("etl.rejects")
    .select([
      "id",
      "run_id",
      "account",
      "stream",
      "slice",
      "raw",
      sql<string>`raw::text`.as("raw_text"),
      "issues",
      "implied",
      "received_at",
      "replayed_at",
    ]);
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

/** Accounts that have rejects (replayed or not), sorted. */
export async function accountsWithRejects(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom("etl.rejects").select("account").distinct().orderBy("account").execute();
  return rows.map((row) => row.account);
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
