import type pg from "pg";
import type { Slice } from "../slices.js";
import { copyRows } from "./copy-rows.js";
import { fieldEncoder } from "./copy-text-encoding.js";
import { type LandingTable, type LoadRow, monthPartitionColumn } from "./landing-table.js";
import { deleteMovedRows, type MergeCounts, movedKeyJson, type RowProvenance } from "./merge-stage.js";
import { quoteIdent, quoteTable } from "./sql-names.js";

const UNIQUE_VIOLATION = "23505";
const SAVEPOINT = "etl_direct_insert";

/** Whether the landing table holds any row of this account in the slice's window (any row at all for a full slice). */
async function windowHasRows(
  client: pg.PoolClient,
  landing: LandingTable,
  account: string,
  slice: Slice,
): Promise<boolean> {
  const table = quoteTable(landing.name);
  if (slice.kind !== "window" || !landing.windowColumn) {
    const any = await client.query(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE _account = $1) AS found`, [
      account,
    ]);
    return any.rows[0].found === true;
  }
  // The transaction runs with TimeZone UTC, so a date bound is the UTC midnight for a timestamptz column.
  const column = quoteIdent(landing.windowColumn);
  const found = await client.query(
    `SELECT EXISTS (SELECT 1 FROM ${table} WHERE _account = $1 AND ${column} >= $2::date AND ${column} < $3::date) AS found`,
    [account, slice.window.start, slice.window.end],
  );
  return found.rows[0].found === true;
}

/**
 * The fast path of a merge: when the landing table has no row of the slice's window yet (a first
 * load, a backfill), every row is an insert, so the rows are COPYed straight into the landing table
 * (COPY batches its writes; INSERT … ON CONFLICT cannot). Runs under a savepoint: if a key exists
 * after all (a row filed under another window), it rolls back to it and returns null, and the
 * caller merges through the stage. Returns the rows inserted otherwise (a row of a table
 * partitioned by month that moved here from another window counts as updated).
 */
export async function insertIntoNewWindow(
  client: pg.PoolClient,
  landing: LandingTable,
  provenance: RowProvenance,
  slice: Slice,
  rows: readonly LoadRow[],
): Promise<MergeCounts | null> {
  if (rows.length === 0 || (await windowHasRows(client, landing, provenance.account, slice))) return null;
  const text = fieldEncoder("text");
  const constants = {
    before: `${text(provenance.account)}\t`,
    after: `${text(provenance.runId)}\t${fieldEncoder("timestamptz")(provenance.extractedAt)}\t`,
  };
  const list = ["_account", ...landing.columns.map((c) => c.name), "_run_id", "_extracted_at", "_extra"].map(
    quoteIdent,
  );
  await client.query(`SAVEPOINT ${SAVEPOINT}`);
  try {
    const inserted = await copyRows(
      client,
      `${quoteTable(landing.name)} (${list.join(", ")})`,
      landing.columns,
      rows,
      constants,
    );
    await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    const moved = await deleteRowsMovedInto(client, landing, provenance, slice);
    return { inserted: inserted - moved, updated: moved };
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    return null;
  }
}

/**
 * A table partitioned by month cannot see a key filed under another month as a conflict (its key
 * holds the window column), so after the COPY each row just inserted into this window is probed
 * for its key under a window value outside it (a lateral subquery: one index lookup per month
 * partition, whatever the planner knows of a fresh table), and those rows are deleted: the new
 * read wins, as a merge's update would. Returns how many; zero for unpartitioned tables (the COPY's
 * unique violation caught it).
 */
async function deleteRowsMovedInto(
  client: pg.PoolClient,
  landing: LandingTable,
  provenance: RowProvenance,
  slice: Slice,
): Promise<number> {
  const account = provenance.account;
  const partitionColumn = monthPartitionColumn(landing);
  if (partitionColumn === null || landing.key === null || slice.kind !== "window") return 0;
  const date = quoteIdent(partitionColumn);
  const table = quoteTable(landing.name);
  const movedColumns = [...landing.key, partitionColumn];
  const sameKey = landing.key.map((k) => `o.${quoteIdent(k)} = n.${quoteIdent(k)}`).join(" AND ");
  await client.query("SET LOCAL jit = off");
  const moved = await client.query<{ row: unknown[] }>(
    `SELECT ${movedKeyJson(landing, "m", "n")} AS row
     FROM ${table} n
     CROSS JOIN LATERAL (
       SELECT ${movedColumns.map((c) => `o.${quoteIdent(c)}`).join(", ")} FROM ${table} o
       WHERE o._account = $1 AND ${sameKey} AND NOT (o.${date} >= $2::date AND o.${date} < $3::date)
       OFFSET 0
     ) m
     WHERE n._account = $1 AND n.${date} >= $2::date AND n.${date} < $3::date`,
    [account, slice.window.start, slice.window.end],
  );
  await deleteMovedRows(
    client,
    landing,
    provenance,
    moved.rows.map((r) => r.row),
  );
  return moved.rows.length;
}
