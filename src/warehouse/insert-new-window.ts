import type pg from "pg";
import type { DateWindow, Slice } from "../slices.js";
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

/** Plans a probe as lookups by key: a nested loop, in this process, compiled by no JIT. */
const PROBE_BY_KEY =
  "SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL jit = off";
/** The planner's settings back to the session's. */
const PLAN_AS_USUAL =
  "RESET enable_hashjoin; RESET enable_mergejoin; RESET max_parallel_workers_per_gather; RESET jit";

/** The first day of the month after the one `first` (`YYYY-MM-01`) begins. */
function nextMonth(first: string): string {
  const year = Number(first.slice(0, 4));
  const month = Number(first.slice(5, 7));
  return month === 12 ? `${year + 1}-01-01` : `${first.slice(0, 4)}-${String(month + 1).padStart(2, "0")}-01`;
}

/**
 * The month partitions that hold the account's rows outside `window` (each existing month from the
 * earliest such row's to the latest's; four index end-point reads), empty when it has none: a probe
 * for moved rows reads only these, not the empty months ahead nor anything for a first window.
 */
async function partitionsOutsideWindow(
  client: pg.PoolClient,
  landing: LandingTable,
  date: string,
  account: string,
  window: DateWindow,
): Promise<string[]> {
  const table = quoteTable(landing.name);
  const end = (fn: "min" | "max", side: string) =>
    `(SELECT ${fn}(${date}) FROM ${table} WHERE _account = $1 AND ${date} ${side})::text`;
  const found = await client.query<{ first: string | null; last: string | null }>(
    `SELECT coalesce(${end("min", "< $2::date")}, ${end("min", ">= $3::date")}) AS first,
            coalesce(${end("max", ">= $3::date")}, ${end("max", "< $2::date")}) AS last`,
    [account, window.start, window.end],
  );
  const { first, last } = found.rows[0]!;
  if (first === null || last === null) return [];
  // Partitions are named <table>_pYYYY_MM (etl.ensure_month_partition); a month may have none.
  const names: string[] = [];
  for (let month = `${first.slice(0, 7)}-01`; month <= last; month = nextMonth(month)) {
    names.push(`${landing.name}_p${month.slice(0, 4)}_${month.slice(5, 7)}`);
  }
  const existing = await client.query<{ name: string }>(
    "SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NOT NULL",
    [names],
  );
  return existing.rows.map((r) => r.name);
}

/**
 * A table partitioned by month cannot see a key filed under another month as a conflict (its key
 * holds the window column), so after the COPY each row just inserted into this window is probed
 * for its key under a window value outside it, in each partition that holds the account's rows
 * outside the window (one primary-key lookup per row and partition), and those rows are deleted: the new read wins, as
 * a merge's update would. Returns how many; zero for unpartitioned tables (the COPY's unique
 * violation caught it).
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
  const partitions = await partitionsOutsideWindow(client, landing, date, account, slice.window);
  if (partitions.length === 0) return 0;
  const sameKey = landing.key.map((k) => `o.${quoteIdent(k)} = n.${quoteIdent(k)}`).join(" AND ");
  const probes = partitions.map(
    (partition) =>
      `SELECT ${movedKeyJson(landing, "o", "n")} AS row
       FROM ${quoteTable(landing.name)} n JOIN ${quoteTable(partition)} o
         ON o._account = n._account AND ${sameKey} AND NOT (o.${date} >= $2::date AND o.${date} < $3::date)
       WHERE n._account = $1 AND n.${date} >= $2::date AND n.${date} < $3::date`,
  );
  // One primary-key lookup per new row and partition, whatever the planner knows of a fresh table
  // (it would rather hash the whole partition, or read it by date range once per row).
  await client.query(PROBE_BY_KEY);
  const moved = await client.query<{ row: unknown[] }>(probes.join(" UNION ALL "), [
    account,
    slice.window.start,
    slice.window.end,
  ]);
  await client.query(PLAN_AS_USUAL);
  await deleteMovedRows(
    client,
    landing,
    provenance,
    moved.rows.map((r) => r.row),
  );
  return moved.rows.length;
}
