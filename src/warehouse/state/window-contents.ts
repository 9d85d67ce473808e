import { sql } from "kysely";
import type { Slice } from "../../core/slices.js";
import { addDays } from "../../core/utc-days.js";
import type { Warehouse } from "../connection/connect-warehouse.js";
import type { LandingTable } from "../connection/landing-table.js";
import { quoteIdent, quoteTable } from "../connection/sql-names.js";

/**
 * What the warehouse holds where a read is about to land, for the rules that hold a read
 * (window-holds.ts): how many rows a replace would replace, and which fields its rows had.
 */

/** What the warehouse held before a read, for the drift rule: its rows, each nullable column's non-null rows, its `_extra` keys. */
export interface FieldPresence {
  readonly rows: number;
  readonly nonNull: Readonly<Record<string, number>>;
  readonly extraKeys: ReadonlySet<string>;
}

/** Rows the drift rule reads at most from the warehouse (its cost stays bounded on large windows). */
const PRESENCE_SAMPLE = 10_000;

/**
 * `column >= from AND column < to` for a window of UTC days, whatever the column's type and the
 * session's time zone (literal bounds: the planner prunes month partitions and uses the table's
 * `(_account, <window column>)` index). `from` and `to` must be checked days.
 */
export function windowPredicate(table: LandingTable, from: string, to: string): string {
  const name = table.windowColumn!;
  const type = table.columns.find((c) => c.name === name)?.pgType;
  const column = quoteIdent(name);
  const bound = (day: string) =>
    type === "date" ? `'${day}'::date` : `('${day}'::timestamp AT TIME ZONE 'UTC')`;
  return `${column} >= ${bound(from)} AND ${column} < ${bound(to)}`;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The rows of the account a read of `slice` replaces: the window's for `replace_window`, else the account's current set. */
function scopeOf(table: LandingTable, slice: Slice, window?: { from: string; to: string }): string {
  const range =
    window ?? (slice.kind === "window" ? { from: slice.window.start, to: slice.window.end } : null);
  if (range !== null && table.windowColumn !== undefined) {
    if (!DAY.test(range.from) || !DAY.test(range.to))
      throw new Error(`not a UTC day range: ${range.from}..${range.to}`);
    return ` AND ${windowPredicate(table, range.from, range.to)}`;
  }
  return table.writeMode === "history" ? " AND valid_to IS NULL" : "";
}

/** Whether a load of this table's slices deletes rows the read does not list (so a shrink loses them). */
export function replacesRows(table: LandingTable): boolean {
  return (
    table.writeMode === "replace_window" || table.writeMode === "replace_all" || table.writeMode === "history"
  );
}

/** How many rows of `account` the warehouse holds where a read of `slice` would replace them. */
export async function storedRowCount(
  warehouse: Warehouse,
  table: LandingTable,
  account: string,
  slice: Slice,
): Promise<number> {
  const result = await sql<{ n: string }>`
    SELECT count(*) AS n FROM ${sql.raw(quoteTable(table.name))}
    WHERE _account = ${account}${sql.raw(scopeOf(table, slice))}`.execute(warehouse.db);
  return Number(result.rows[0]?.n ?? 0);
}

/**
 * What the account's rows had before a read of `slice`: those of the same window when the
 * warehouse holds some (a re-read), else those of the window of the same length just before it
 * (a first read), else (no window column) the account's current rows; at most
 * {@link PRESENCE_SAMPLE} rows. Each nullable column's non-null rows, and every `_extra` key.
 */
export async function fieldPresence(
  warehouse: Warehouse,
  table: LandingTable,
  account: string,
  slice: Slice,
  nullableColumns: readonly string[],
): Promise<FieldPresence> {
  const read = async (window?: { from: string; to: string }): Promise<FieldPresence> => {
    const counts = nullableColumns.map((c, i) => `count(${quoteIdent(c)}) AS c${i}`).join(", ");
    const columns = [...nullableColumns.map(quoteIdent), "_extra"].join(", ");
    const result = await sql<Record<string, unknown>>`
      WITH sample AS (
        SELECT ${sql.raw(columns)} FROM ${sql.raw(quoteTable(table.name))}
        WHERE _account = ${account}${sql.raw(scopeOf(table, slice, window))}
        LIMIT ${PRESENCE_SAMPLE}
      )
      SELECT count(*) AS n${sql.raw(counts === "" ? "" : `, ${counts}`)},
        (SELECT coalesce(array_agg(DISTINCT k), '{}') FROM sample,
          jsonb_object_keys(CASE WHEN jsonb_typeof(sample._extra) = 'object' THEN sample._extra ELSE '{}'::jsonb END) AS k
        ) AS keys
      FROM sample`.execute(warehouse.db);
    const row = result.rows[0] ?? {};
    return {
      rows: Number(row.n ?? 0),
      nonNull: Object.fromEntries(nullableColumns.map((c, i) => [c, Number(row[`c${i}`] ?? 0)])),
      extraKeys: new Set((row.keys as string[] | undefined) ?? []),
    };
  };
  const same = await read();
  if (same.rows > 0 || slice.kind !== "window" || table.windowColumn === undefined) return same;
  const { start, end } = slice.window;
  const days = Math.round((Date.parse(end) - Date.parse(start)) / 86_400_000);
  return read({ from: addDays(start, -days), to: start });
}
