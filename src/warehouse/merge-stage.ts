import type pg from "pg";
import type { DateWindow } from "../slices.js";
import { type LandingTable, monthPartitionColumn, primaryKeyOf } from "./landing-table.js";
import { quoteIdent, quoteTable } from "./sql-names.js";
import { STAGE_TABLE } from "./stage-rows.js";

/** Values every row of a slice shares: its account, the run writing it and when it was extracted. */
export interface RowProvenance {
  readonly account: string;
  readonly runId: number;
  readonly extractedAt: Date;
}

/** Rows a merge inserted and updated; the staged rows neither touched were unchanged. */
export interface MergeCounts {
  readonly inserted: number;
  readonly updated: number;
}

/**
 * One `INSERT … SELECT … ON CONFLICT (key) DO UPDATE … WHERE` the row actually changed, from the
 * stage (whose keys are already distinct) into the landing table. `xmax = 0` marks a fresh insert.
 */
export async function mergeStage(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
): Promise<MergeCounts> {
  const columns = table.columns.map((column) => column.name);
  if (table.key === null) throw new Error(`${table.name} has no key to merge on`);
  if (monthPartitionColumn(table) !== null) return mergeIntoMonthPartitions(client, table, provenance);
  const key = primaryKeyOf(table);
  const keySet = new Set(key);
  const compared = [...columns.filter((name) => !keySet.has(name)), "_extra"].map(quoteIdent);
  const targetList = ["_account", ...columns, "_run_id", "_extracted_at", "_extra"].map(quoteIdent);
  const selectList = [
    "$1::text",
    ...columns.map((name) => `s.${quoteIdent(name)}`),
    "$2::bigint",
    "$3::timestamptz",
    "s._extra",
  ];
  const updates = [...compared, quoteIdent("_run_id"), quoteIdent("_extracted_at")].map(
    (name) => `${name} = EXCLUDED.${name}`,
  );
  const text = `
    WITH merged AS (
      INSERT INTO ${quoteTable(table.name)} AS t (${targetList.join(", ")})
      SELECT ${selectList.join(", ")} FROM ${STAGE_TABLE} s
      ON CONFLICT (${key.map(quoteIdent).join(", ")}) DO UPDATE SET ${updates.join(", ")}
      WHERE (${compared.map((name) => `t.${name}`).join(", ")})
        IS DISTINCT FROM (${compared.map((name) => `EXCLUDED.${name}`).join(", ")})
      RETURNING (xmax = 0) AS inserted
    )
    SELECT count(*) FILTER (WHERE inserted) AS inserted, count(*) FILTER (WHERE NOT inserted) AS updated
    FROM merged`;
  const result = await client.query<{ inserted: string | number; updated: string | number }>(text, [
    provenance.account,
    provenance.runId,
    provenance.extractedAt,
  ]);
  const row = result.rows[0]!;
  return { inserted: Number(row.inserted), updated: Number(row.updated) };
}

/**
 * The merge into a table partitioned by month: its primary key holds the window column, and
 * `RETURNING xmax` does not work through partitions, so it runs as two statements in the load's
 * transaction (the stream's lock keeps the account's rows to this one writer). First the changed
 * rows are updated in place; then the staged rows not found in place are inserted, and the rows
 * that had their key under another window value (moved to another month) are deleted: a moved row
 * counts as updated. Joins run as index probes driven by the (small) stage, so an update or an
 * in-place check touches only the staged rows' partitions, and a new row costs one probe per
 * month partition (see {@link withIndexProbes}).
 */
async function mergeIntoMonthPartitions(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
): Promise<MergeCounts> {
  if (table.key === null) throw new Error(`${table.name} has no key to merge on`);
  const primaryKey = new Set(primaryKeyOf(table));
  const columns = table.columns.map((column) => column.name);
  const inPlace = [...primaryKey]
    .filter((name) => name !== "_account")
    .map((name) => `t.${quoteIdent(name)} = s.${quoteIdent(name)}`)
    .join(" AND ");
  const sameKey = table.key.map((k) => `t.${quoteIdent(k)} = s.${quoteIdent(k)}`).join(" AND ");
  const partitionColumn = quoteIdent(monthPartitionColumn(table)!);
  const compared = [...columns.filter((name) => !primaryKey.has(name)), "_extra"].map(quoteIdent);
  const sets = [
    ...compared.map((name) => `${name} = s.${name}`),
    "_run_id = $2::bigint",
    "_extracted_at = $3::timestamptz",
  ];
  const params = [provenance.account, provenance.runId, provenance.extractedAt];
  const name = quoteTable(table.name);
  const targetList = ["_account", ...columns, "_run_id", "_extracted_at", "_extra"].map(quoteIdent);
  return withIndexProbes(client, async () => {
    const updated = await client.query(
      `UPDATE ${name} t SET ${sets.join(", ")} FROM ${STAGE_TABLE} s
       WHERE t._account = $1 AND ${inPlace}
         AND (${compared.map((c) => `t.${c}`).join(", ")}) IS DISTINCT FROM (${compared.map((c) => `s.${c}`).join(", ")})`,
      params,
    );
    const written = await client.query<{ inserted: string; moved: string }>(
      `WITH fresh AS MATERIALIZED (
         SELECT s.* FROM ${STAGE_TABLE} s
         WHERE NOT EXISTS (SELECT 1 FROM ${name} t WHERE t._account = $1 AND ${inPlace})
       ), moved AS (
         DELETE FROM ${name} t USING fresh s
         WHERE t._account = $1 AND ${sameKey} AND t.${partitionColumn} <> s.${partitionColumn}
         RETURNING 1
       ), inserted AS (
         INSERT INTO ${name} (${targetList.join(", ")})
         SELECT $1::text, ${columns.map((c) => `s.${quoteIdent(c)}`).join(", ")}, $2::bigint, $3::timestamptz, s._extra
         FROM fresh s
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM moved) AS moved`,
      params,
    );
    const moved = Number(written.rows[0]!.moved);
    return { inserted: Number(written.rows[0]!.inserted) - moved, updated: (updated.rowCount ?? 0) + moved };
  });
}

/**
 * Runs `work` with hash and merge joins off for the transaction, then back to the defaults: a
 * stage of one window joined to a partitioned table is best read as one index probe per staged
 * row (run-time pruning keeps a probe with the window column to one partition), never as a scan
 * of every partition, which the planner may pick for a stage it has no statistics of.
 */
export async function withIndexProbes<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query("SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off");
  try {
    return await work();
  } finally {
    await client.query("SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT");
  }
}

/** Rows a window replacement deleted and inserted, and staged rows it skipped as outside the window. */
export interface ReplaceCounts {
  readonly deleted: number;
  readonly inserted: number;
  readonly outsideWindow: number;
}

/**
 * The SQL pieces both window writes share, so a replacement and an append number a day's rows the
 * same way: `into` lists the landing columns (`_row_ordinal` second), `dayRank` numbers each day's
 * staged rows 1, 2, … by content, and `values` follows the ordinal ($2 run id, $3 extracted at).
 */
function windowInsert(landing: LandingTable, action: string) {
  const windowColumn = landing.windowColumn;
  if (!windowColumn) throw new Error(`${landing.name} ${action} by window but names no windowColumn`);
  const table = quoteTable(landing.name);
  const win = quoteIdent(windowColumn);
  const columns = landing.columns.map((column) => quoteIdent(column.name));
  const staged = columns.map((name) => `s.${name}`);
  return {
    table,
    win,
    into: `INSERT INTO ${table} (_account, _row_ordinal, ${columns.join(", ")}, _run_id, _extracted_at, _extra)`,
    dayRank: `row_number() OVER (PARTITION BY s.${win} ORDER BY ${[...staged, "s._extra::text"].join(", ")})`,
    values: `${staged.join(", ")}, $2::bigint, $3::timestamptz, s._extra`,
  };
}

/**
 * Replaces the account's rows of `window` (all its rows when no window) by the staged rows of that
 * window, numbering each day's rows by content (`_row_ordinal`) so a re-run writes identical rows.
 * Staged rows of another window are left to that window's own load.
 */
export async function replaceWindowFromStage(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
  window: DateWindow | null,
  staged: number,
): Promise<ReplaceCounts> {
  const { table: name, win, into, dayRank, values } = windowInsert(table, "writes");
  const inWindow = window ? ` AND ${win} >= $2::date AND ${win} < $3::date` : "";
  const windowParams = window ? [window.start, window.end] : [];
  const deleted = await client.query(`DELETE FROM ${name} WHERE _account = $1${inWindow}`, [
    provenance.account,
    ...windowParams,
  ]);
  const stagedInWindow = window ? ` WHERE s.${win} >= $4::date AND s.${win} < $5::date` : "";
  const inserted = await client.query(
    `${into}
     SELECT $1::text, ${dayRank}, ${values}
     FROM ${STAGE_TABLE} s${stagedInWindow}`,
    [provenance.account, provenance.runId, provenance.extractedAt, ...windowParams],
  );
  const insertedCount = inserted.rowCount ?? 0;
  return { deleted: deleted.rowCount ?? 0, inserted: insertedCount, outsideWindow: staged - insertedCount };
}

/**
 * Adds the staged rows to the account's rows of their days without deleting any (the replay of
 * rejects of a `replace_window` stream): each day's new rows are numbered after that day's highest
 * `_row_ordinal`. Every staged row is added, whatever window it came from: its day places it, and
 * the next normal load of that day's window replaces it with what the platform serves.
 */
export async function appendFromStage(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
): Promise<number> {
  const { table: name, win, into, dayRank, values } = windowInsert(table, "appends");
  const inserted = await client.query(
    `${into}
     SELECT $1::text, COALESCE(m.last_ordinal, 0) + ${dayRank}, ${values}
     FROM ${STAGE_TABLE} s
     LEFT JOIN (
       SELECT ${win} AS day, max(_row_ordinal) AS last_ordinal FROM ${name} WHERE _account = $1 GROUP BY 1
     ) m ON m.day = s.${win}`,
    [provenance.account, provenance.runId, provenance.extractedAt],
  );
  return inserted.rowCount ?? 0;
}
