/**
 * Columns a stream's `evolve` schema contract added to its landing table, one row each in
 * `etl.schema_changes`: the landing table is altered and the change recorded in one transaction,
 * so a column exists exactly when its record does, and two slices adding the same field at once
 * add it once (the second waits for the first's lock, then finds the column and its record).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../connection/database.js";
import { quoteIdent, quoteTable } from "../connection/sql-names.js";

/** The PostgreSQL type an evolved column gets, by the JSON type of its values (`etl.schema_changes.column_type`). */
export const EVOLVED_COLUMN_TYPES = { string: "text", number: "numeric", boolean: "boolean" } as const;
/** A JSON type a field must have to become a column. */
export type EvolvedJsonType = keyof typeof EVOLVED_COLUMN_TYPES;
/** An evolved column's PostgreSQL type. */
export type EvolvedColumnType = (typeof EVOLVED_COLUMN_TYPES)[EvolvedJsonType];

/** A column to add: the field (the column's name) and its type. */
export interface EvolvedColumn {
  readonly field: string;
  readonly columnType: EvolvedColumnType;
}

/** One row of `etl.schema_changes`: a column added, and where its field was first seen. */
export interface SchemaChange extends EvolvedColumn {
  readonly stream: string;
  readonly firstRun: number | null;
  readonly firstAccount: string;
  readonly firstWindow: string;
  readonly addedAt: Date;
}

/**
 * Longest an `ALTER TABLE` waits for the landing table's lock: queued behind a long query (a BI
 * session reading the table), it would block every reader and load of the table meanwhile.
 */
export const ADD_COLUMN_LOCK_TIMEOUT_MS = 30_000;

/** Where a slice saw the fields it adds: the run, the account and the window read. */
export interface ChangePlace {
  readonly runId: number;
  readonly account: string;
  readonly window: string;
}

/**
 * Adds `columns` to `table` (`ADD COLUMN IF NOT EXISTS`; a partitioned table's partitions take
 * them too) and records those not recorded yet, in one transaction; returns every column recorded
 * for `stream` after it, with the ones this call added (to report once). A column another slice
 * added first keeps that slice's type: the caller reads the recorded types, not its own guess.
 */
export async function addEvolvedColumns(
  db: Kysely<Database>,
  target: { readonly stream: string; readonly table: string },
  place: ChangePlace,
  columns: readonly EvolvedColumn[],
  lockTimeoutMs = ADD_COLUMN_LOCK_TIMEOUT_MS,
): Promise<{ readonly recorded: SchemaChange[]; readonly added: SchemaChange[] }> {
  const added = await db
    .transaction()
    .execute(async (tx) => {
      await sql.raw(`SET LOCAL lock_timeout = ${Math.round(lockTimeoutMs)}`).execute(tx);
      return addAndRecord(tx, target, place, columns);
    })
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
      throw new Error(
        `could not add column(s) ${columns.map((c) => c.field).join(", ")} to ${target.table}: another session held the table for ${lockTimeoutMs / 1000} s (a long query?); the window is read again by the next run`,
        { cause: error },
      );
    });
  const recorded = await listSchemaChanges(db, { stream: target.stream });
  return { recorded, added: recorded.filter((change) => added.includes(change.field)) };
}

/** PostgreSQL's SQLSTATE of a lock not obtained within `lock_timeout`. */
const LOCK_NOT_AVAILABLE = "55P03";

/** The transaction's work: each column added if missing, and recorded if not recorded yet; the fields it recorded. */
async function addAndRecord(
  tx: Kysely<Database>,
  target: { readonly stream: string; readonly table: string },
  place: ChangePlace,
  columns: readonly EvolvedColumn[],
): Promise<string[]> {
  const fresh: string[] = [];
  for (const column of columns) {
    await sql
      .raw(
        `ALTER TABLE ${quoteTable(target.table)} ADD COLUMN IF NOT EXISTS ${quoteIdent(column.field)} ${column.columnType}`,
      )
      .execute(tx);
    const inserted = await tx
      .insertInto("etl.schema_changes")
      .values({
        stream: target.stream,
        field: column.field,
        column_type: column.columnType,
        first_run: place.runId,
        first_account: place.account,
        first_window: place.window,
      })
      .onConflict((oc) => oc.columns(["stream", "field"]).doNothing())
      .returning("field")
      .execute();
    if (inserted.length > 0) fresh.push(column.field);
  }
  return fresh;
}

/** The recorded schema changes, by stream and field; only a stream's, or those a run made, when given. */
export async function listSchemaChanges(
  db: Kysely<Database>,
  filter: { readonly stream?: string; readonly firstRun?: number } = {},
): Promise<SchemaChange[]> {
  let query = db.selectFrom("etl.schema_changes").selectAll().orderBy("stream").orderBy("field");
  if (filter.stream !== undefined) query = query.where("stream", "=", filter.stream);
  if (filter.firstRun !== undefined) query = query.where("first_run", "=", filter.firstRun);
  const rows = await query.execute();
  return rows.map((r) => ({
    stream: r.stream,
    field: r.field,
    columnType: r.column_type as EvolvedColumnType,
    firstRun: r.first_run === null ? null : Number(r.first_run),
    firstAccount: r.first_account,
    firstWindow: r.first_window,
    addedAt: new Date(r.added_at),
  }));
}
