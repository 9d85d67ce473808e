import type pg from "pg";
import type { Slice } from "../slices.js";
import { copyRows } from "./copy-rows.js";
import { fieldEncoder } from "./copy-text-encoding.js";
import type { LandingTable, LoadRow } from "./landing-table.js";
import type { RowProvenance } from "./merge-stage.js";
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
 * caller merges through the stage. Returns the number of rows inserted otherwise.
 */
export async function insertIntoNewWindow(
  client: pg.PoolClient,
  landing: LandingTable,
  provenance: RowProvenance,
  slice: Slice,
  rows: readonly LoadRow[],
): Promise<number | null> {
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
    return inserted;
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    return null;
  }
}
