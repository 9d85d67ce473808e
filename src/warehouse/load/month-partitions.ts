import type pg from "pg";
import type { Slice } from "../../core/slices.js";
import { commonTimestampMs } from "../../core/utc-days.js";
import { type LandingTable, type LoadRow, monthPartitionColumn } from "../connection/landing-table.js";

/**
 * Month partitions of the tables partitioned by month (see migration 0023): a load makes sure the
 * months its rows fall in have their partition before its transaction starts, so the load itself
 * never runs DDL (creating a partition locks the whole table for a moment; inside a load it would
 * hold that lock until the commit and deadlock against a concurrent load).
 */

/** Half a day and two hours: a timestamp written without an offset may be any zone's local time. */
const ZONE_SLACK_MS = 14 * 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Per pool: partitions seen to exist (`<table> <YYYY-MM-01>`), so each is ensured once per process,
 * and whether each table is partitioned at all (`<table> partitioned` / `<table> unpartitioned`).
 */
const knownPartitions = new WeakMap<pg.Pool, Set<string>>();

/** The first day of each day's month, by day number since the epoch: a load asks for a few dozen days, once per row. */
const monthOfDayNumber = new Map<number, string>();

function firstOfMonth(ms: number): string {
  const dayNumber = Math.floor(ms / DAY_MS);
  let month = monthOfDayNumber.get(dayNumber);
  if (month === undefined) {
    const d = new Date(ms);
    month = `${d.getUTCFullYear().toString().padStart(4, "0")}-${String(d.getUTCMonth() + 1).padStart(2, "0")}-01`;
    if (monthOfDayNumber.size >= 100_000) monthOfDayNumber.clear();
    monthOfDayNumber.set(dayNumber, month);
  }
  return month;
}

function instantOf(value: unknown): number | null {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== "string") return null;
  const common = commonTimestampMs(value);
  if (common !== undefined) return Number.isNaN(common) ? null : common;
  const zoned = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/.test(value.trim());
  const ms = Date.parse(zoned ? value : `${value.trim().replace(" ", "T")}Z`);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The first days of the months (UTC) a load of `rows` into `table` may write: every month of the
 * slice's window, and each row's month with 14 hours either side (a value without an offset is
 * read as UTC by the warehouse, but the margin keeps any reading inside a partition). With
 * `keepsFrom` (retention's horizon, YYYY-MM-01), a month before it is one only a row of that
 * month itself brings, never the window or the margin: the next run would retire it again.
 */
export function monthsOfLoad(
  table: LandingTable,
  slice: Slice,
  rows: readonly LoadRow[],
  keepsFrom?: string,
): string[] {
  const column = monthPartitionColumn(table);
  if (column === null) return [];
  const months = new Set<string>();
  const kept = (month: string) => keepsFrom === undefined || month >= keepsFrom;
  if (slice.kind === "window") {
    const end = Date.parse(`${slice.window.end}T00:00:00Z`);
    for (let ms = Date.parse(`${slice.window.start}T00:00:00Z`); ms < end; ms += DAY_MS)
      if (kept(firstOfMonth(ms))) months.add(firstOfMonth(ms));
  }
  for (const row of rows) {
    const ms = instantOf(row.columns[column]);
    if (ms === null) continue;
    months.add(firstOfMonth(ms));
    for (const month of [firstOfMonth(ms - ZONE_SLACK_MS), firstOfMonth(ms + ZONE_SLACK_MS)])
      if (kept(month)) months.add(month);
  }
  return [...months].sort();
}

/**
 * Creates the month partitions a load of `rows` into `table` needs (see {@link monthsOfLoad};
 * `keepsFrom`: retention's horizon) and does not have yet (one
 * short transaction each, through `etl.ensure_month_partition`, which concurrent loaders share).
 * Returns the table as the warehouse holds it: a table declared partitioned that a warehouse still
 * has flat (migrated before 0023: an upgrade test, a pinned schema) is written as a flat table.
 */
export async function ensureMonthPartitions(
  pool: pg.Pool,
  table: LandingTable,
  slice: Slice,
  rows: readonly LoadRow[],
  keepsFrom?: string,
): Promise<LandingTable> {
  if (monthPartitionColumn(table) === null) return table;
  let known = knownPartitions.get(pool);
  if (known === undefined) {
    known = new Set();
    knownPartitions.set(pool, known);
  }
  if (!known.has(`${table.name} partitioned`) && !known.has(`${table.name} unpartitioned`)) {
    const found = await pool.query<{ partitioned: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_partitioned_table WHERE partrelid = to_regclass($1)) AS partitioned",
      [table.name],
    );
    known.add(`${table.name} ${found.rows[0]?.partitioned === true ? "partitioned" : "unpartitioned"}`);
  }
  if (known.has(`${table.name} unpartitioned`)) return { ...table, partitionedByMonth: false };
  for (const month of monthsOfLoad(table, slice, rows, keepsFrom)) {
    const id = `${table.name} ${month}`;
    if (known.has(id)) continue;
    await pool.query("SELECT etl.ensure_month_partition($1::regclass, $2::date)", [table.name, month]);
    known.add(id);
  }
  return table;
}

/** Forgets the partitions a pool has seen (retention dropped some: the next load of such a month creates it again). */
export function forgetKnownPartitions(pool: pg.Pool): void {
  knownPartitions.delete(pool);
}

/**
 * The month partitions of `table` (named `<table>_pYYYY_MM` by etl.ensure_month_partition, without
 * the schema), each with its month (`YYYY-MM-01`), oldest first.
 */
export async function monthPartitionsOf(
  pool: pg.Pool | pg.ClientBase,
  table: LandingTable,
): Promise<{ partition: string; month: string }[]> {
  const [schema, name] = table.name.split(".") as [string, string];
  const found = await pool.query<{ partition: string }>(
    `SELECT c.relname AS partition
     FROM pg_catalog.pg_inherits i
     JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass($1)
     ORDER BY 1`,
    [`${schema}.${name}`],
  );
  const pattern = new RegExp(`^${name}_p(\\d{4})_(\\d{2})$`);
  return found.rows.flatMap(({ partition }) => {
    const match = pattern.exec(partition);
    return match ? [{ partition, month: `${match[1]}-${match[2]}-01` }] : [];
  });
}
