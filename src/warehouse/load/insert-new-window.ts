import type pg from "pg";
import type { DateWindow, Slice } from "../../core/slices.js";
import { utcDayOfValue } from "../../core/utc-days.js";
import { type LandingTable, type LoadRow, monthPartitionColumn } from "../connection/landing-table.js";
import { quoteIdent, quoteTable, sameColumns } from "../connection/sql-names.js";
import { copyRows } from "./copy-rows.js";
import { fieldEncoder } from "./copy-text-encoding.js";
import { deleteMovedRows, type MergeCounts, movedKeyJson, type RowProvenance } from "./merge-stage.js";
import { monthPartitionsOf } from "./month-partitions.js";

const UNIQUE_VIOLATION = "23505";
const SAVEPOINT = "etl_direct_insert";

/**
 * `value` (a window column, quoted) lies in the window bound as $2..$3. The transaction runs with
 * TimeZone UTC, so a date bound is the UTC midnight for a timestamptz column.
 */
function inWindow(value: string): string {
  return `${value} >= $2::date AND ${value} < $3::date`;
}

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
  const column = quoteIdent(landing.windowColumn);
  const found = await client.query(
    `SELECT EXISTS (SELECT 1 FROM ${table} WHERE _account = $1 AND ${inWindow(column)}) AS found`,
    [account, slice.window.start, slice.window.end],
  );
  return found.rows[0].found === true;
}

/**
 * Whether a row of a window's read lies outside that window (a platform whose day is shifted: a
 * merge stream loads it under its own day) or its day cannot be told. The fast path's probe for
 * moved rows looks at the window's rows only, so such a read merges through the stage, whose probe
 * looks at every row: its copy under another day is then deleted, not kept beside it.
 */
function someRowOutside(landing: LandingTable, slice: Slice, rows: readonly LoadRow[]): boolean {
  const column = landing.windowColumn;
  if (slice.kind !== "window" || column === undefined) return false;
  const { start, end } = slice.window;
  for (const row of rows) {
    const day = utcDayOfValue(row.columns[column]);
    if (day === null || day < start || day >= end) return true;
  }
  return false;
}

/** What a new window receives. */
export interface NewWindowRows {
  readonly slice: Slice;
  readonly rows: readonly LoadRow[];
  /**
   * For a table partitioned by month: the rows among `rows` the run may have written under
   * another window before, when the table held no row of the account before the run (see
   * RunWrittenKeys); only they are probed for a copy outside the window. Undefined: every row is.
   */
  readonly writtenBefore?: readonly LoadRow[] | undefined;
  /** How many of `rows` lie outside the window, when the caller counted them (else counted here). */
  readonly outside?: number | undefined;
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
  { slice, rows, writtenBefore, outside }: NewWindowRows,
): Promise<MergeCounts | null> {
  if (rows.length === 0) return null;
  if (outside === undefined ? someRowOutside(landing, slice, rows) : outside > 0) return null;
  if (await windowHasRows(client, landing, provenance.account, slice)) return null;
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
    const moved = await deleteRowsMovedInto(client, landing, provenance, slice, writtenBefore);
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

/**
 * The month partitions that hold the account's rows outside `window` (each existing month from the
 * earliest such row's to the latest's; four index end-point reads and the table's catalog), empty
 * when it has none: a probe for moved rows reads only these, not the empty months ahead nor
 * anything for a first window.
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
  const from = `${first.slice(0, 7)}-01`;
  const schema = landing.name.slice(0, landing.name.indexOf("."));
  return (await monthPartitionsOf(client, landing))
    .filter(({ month }) => month >= from && month <= last)
    .map(({ partition }) => `${schema}.${partition}`);
}

/** A probe for moved rows: its statement, with the account and the window's bounds as $1..$3 and `values` after them. */
interface Probe {
  readonly sql: string;
  readonly values: readonly unknown[];
}

/**
 * Above this many rows the run may have written before, a window probes every row (the usual
 * way) rather than a list of keys sent along.
 */
const MAX_LISTED_KEYS = 2_000;

/**
 * The probe of every row of the window, in each month partition that holds the account's rows
 * outside the window (one primary-key lookup per row and partition); null when none does.
 */
async function probeEveryRow(
  client: pg.PoolClient,
  landing: LandingTable,
  date: string,
  account: string,
  window: DateWindow,
): Promise<Probe | null> {
  const partitions = await partitionsOutsideWindow(client, landing, date, account, window);
  if (partitions.length === 0) return null;
  const probes = partitions.map(
    (partition) =>
      `SELECT ${movedKeyJson(landing, "o", "n")} AS row
       FROM ${quoteTable(landing.name)} n JOIN ${quoteTable(partition)} o
         ON o._account = n._account AND ${sameColumns(landing.key ?? [], "o", "n")} AND NOT (${inWindow(`o.${date}`)})
       WHERE n._account = $1 AND ${inWindow(`n.${date}`)}`,
  );
  return { sql: probes.join(" UNION ALL "), values: [] };
}

/**
 * The probe of only `rows`: their keys and window values are sent as JSON, typed by the table's own
 * row type, and each one inside the window is looked up in every partition outside it (the rows
 * just COPYed are not read again: the planner has no statistics of them and would scan the
 * window for each key). Null when there are none.
 */
function probeListedRows(landing: LandingTable, date: string, rows: readonly LoadRow[]): Probe | null {
  if (rows.length === 0) return null;
  const columns = [...(landing.key ?? []), monthPartitionColumn(landing)!];
  const listed = rows.map((row) => Object.fromEntries(columns.map((c) => [c, row.columns[c]])));
  const table = quoteTable(landing.name);
  return {
    sql: `SELECT ${movedKeyJson(landing, "o", "k")} AS row
          FROM json_populate_recordset(NULL::${table}, $4::json) k
          JOIN ${table} o ON o._account = $1 AND ${sameColumns(landing.key ?? [], "o", "k")} AND NOT (${inWindow(`o.${date}`)})
          WHERE ${inWindow(`k.${date}`)}`,
    values: [JSON.stringify(listed)],
  };
}

/**
 * A table partitioned by month cannot see a key filed under another month as a conflict (its key
 * holds the window column), so after the COPY the rows just inserted into this window are probed
 * for their key under a window value outside it, and those rows are deleted: the new read wins,
 * as a merge's update would. Every row is probed, unless `writtenBefore` lists the only rows that
 * can have moved (see RunWrittenKeys). Returns how many; zero for unpartitioned tables (the
 * COPY's unique violation caught it).
 */
async function deleteRowsMovedInto(
  client: pg.PoolClient,
  landing: LandingTable,
  provenance: RowProvenance,
  slice: Slice,
  writtenBefore: readonly LoadRow[] | undefined,
): Promise<number> {
  const account = provenance.account;
  const partitionColumn = monthPartitionColumn(landing);
  if (partitionColumn === null || landing.key === null || slice.kind !== "window") return 0;
  const date = quoteIdent(partitionColumn);
  const probe =
    writtenBefore !== undefined && writtenBefore.length <= MAX_LISTED_KEYS
      ? probeListedRows(landing, date, writtenBefore)
      : await probeEveryRow(client, landing, date, account, slice.window);
  if (probe === null) return 0;
  // One primary-key lookup per probed row and partition, whatever the planner knows of a fresh
  // table (it would rather hash the whole partition, or read it by date range once per row).
  await client.query(PROBE_BY_KEY);
  const moved = await client.query<{ row: unknown[] }>(probe.sql, [
    account,
    slice.window.start,
    slice.window.end,
    ...probe.values,
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
