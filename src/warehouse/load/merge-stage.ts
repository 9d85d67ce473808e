import type pg from "pg";
import type { DateWindow } from "../../core/slices.js";
import { type LandingTable, monthPartitionColumn, primaryKeyOf } from "../connection/landing-table.js";
import { quoteIdent, quoteTable, sameColumns } from "../connection/sql-names.js";
import { contentDifference } from "./content-difference.js";
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
 * The `INSERT … SELECT … ON CONFLICT (primary key) DO UPDATE … WHERE` the row actually changed,
 * from the stage (whose keys are already distinct) into the landing table; parameters $1 account,
 * $2 run id, $3 extracted at. A conflict is an index lookup by construction, in a flat table or
 * in the one partition the row routes to.
 */
function upsertFromStage(table: LandingTable): string {
  const columns = table.columns.map((column) => column.name);
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
  return `INSERT INTO ${quoteTable(table.name)} AS t (${targetList.join(", ")})
      SELECT ${selectList.join(", ")} FROM ${STAGE_TABLE} s
      ON CONFLICT (${key.map(quoteIdent).join(", ")}) DO UPDATE SET ${updates.join(", ")}
      WHERE (${compared.map((name) => `t.${name}`).join(", ")})
        IS DISTINCT FROM (${compared.map((name) => `EXCLUDED.${name}`).join(", ")})`;
}

/**
 * Merges the stage into the landing table by key ({@link upsertFromStage}) and counts what it did;
 * in a flat table `xmax = 0` marks a fresh insert. Tables partitioned by month merge through
 * {@link mergeIntoMonthPartitions}.
 */
export async function mergeStage(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
): Promise<MergeCounts> {
  if (table.key === null) throw new Error(`${table.name} has no key to merge on`);
  if (monthPartitionColumn(table) !== null) return mergeIntoMonthPartitions(client, table, provenance);
  const result = await client.query<{ inserted: string | number; updated: string | number }>(
    `WITH merged AS (${upsertFromStage(table)} RETURNING (xmax = 0) AS inserted)
     SELECT count(*) FILTER (WHERE inserted) AS inserted, count(*) FILTER (WHERE NOT inserted) AS updated
     FROM merged`,
    [provenance.account, provenance.runId, provenance.extractedAt],
  );
  const row = result.rows[0]!;
  return { inserted: Number(row.inserted), updated: Number(row.updated) };
}

/**
 * The merge into a table partitioned by month, whose primary key holds the window column
 * (`RETURNING xmax` does not work through partitions, so inserts are told from updates by a probe
 * first). One probe per staged row (a lateral subquery: always an index lookup, whatever the
 * planner knows of a fresh table) finds whether the row is in place (same key and window value:
 * one partition, pruned at run time) and, if not, whether its key sits under another window value
 * (moved to another month: one lookup per month partition). Moved rows are deleted from their old
 * month, then one `INSERT … ON CONFLICT DO UPDATE … WHERE` the row changed writes the rest. A moved
 * row counts as updated. JIT is off: it compiles for longer than these probes run.
 */
async function mergeIntoMonthPartitions(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
): Promise<MergeCounts> {
  if (table.key === null) throw new Error(`${table.name} has no key to merge on`);
  const partitionColumn = monthPartitionColumn(table)!;
  const name = quoteTable(table.name);
  const date = quoteIdent(partitionColumn);
  const movedColumns = [...table.key, partitionColumn];
  await client.query("SET LOCAL jit = off");
  const probed = await client.query<{ staged: string; in_place: string; moved: unknown[][] }>(
    `SELECT count(*) AS staged, count(f.found) AS in_place,
       COALESCE(json_agg(${movedKeyJson(table, "m", "s")})
         FILTER (WHERE m.${date} IS NOT NULL), '[]') AS moved
     FROM ${STAGE_TABLE} s
     LEFT JOIN LATERAL (
       SELECT true AS found FROM ${name} t WHERE t._account = $1 AND ${sameColumns([...table.key, partitionColumn], "t", "s")}
       OFFSET 0
     ) f ON true
     LEFT JOIN LATERAL (
       SELECT ${movedColumns.map((c) => `o.${quoteIdent(c)}`).join(", ")} FROM ${name} o
       WHERE f.found IS NULL AND o._account = $1 AND ${sameColumns(table.key, "o", "s")} AND o.${date} <> s.${date}
       OFFSET 0
     ) m ON true`,
    [provenance.account],
  );
  const { moved } = probed.rows[0]!;
  await deleteMovedRows(client, table, provenance, moved);
  const written = await client.query<{ written: string }>(
    `WITH merged AS (${upsertFromStage(table)} RETURNING 1) SELECT count(*) AS written FROM merged`,
    [provenance.account, provenance.runId, provenance.extractedAt],
  );
  // Every staged row not in place was inserted (a moved one into its new month); the rest of the
  // written rows were updated in place.
  const inserted = Number(probed.rows[0]!.staged) - Number(probed.rows[0]!.in_place);
  const updated = Number(written.rows[0]!.written) - inserted;
  return { inserted: inserted - moved.length, updated: updated + moved.length };
}

/**
 * A row that moved, in a table partitioned by month, as a JSON array of texts (exact for any type,
 * a bigint id included) for {@link deleteMovedRows}: the key and window value of its old copy
 * (alias `old`), then the UTC day of its new window value (alias `moved`; the load's transaction
 * runs with TimeZone UTC).
 */
export function movedKeyJson(table: LandingTable, old: string, moved: string): string {
  const columns = [...(table.key ?? []), monthPartitionColumn(table)!];
  const oldValues = columns.map((c) => `${old}.${quoteIdent(c)}::text`);
  const newDay = `${moved}.${quoteIdent(monthPartitionColumn(table)!)}::date::text`;
  return `json_build_array(${[...oldValues, newDay].join(", ")})`;
}

/**
 * Deletes the account's rows of a table partitioned by month whose key and window value are one of
 * `moved` (each as {@link movedKeyJson} gives it): the old copies of rows that moved to another
 * day. One statement per row, each an index lookup in one partition; moved rows are rare. Each
 * move is logged in etl.landing_moves (key, old value, new day, run), in the same transaction:
 * the facts partitioned by month delete their old copies of exactly these rows (dbt macro
 * delete_moved_rows).
 */
export async function deleteMovedRows(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
  moved: readonly (readonly unknown[])[],
): Promise<void> {
  if (moved.length === 0) return;
  const key = table.key ?? [];
  const columns = [...key, monthPartitionColumn(table)!];
  const match = columns.map((c, i) => `${quoteIdent(c)} = $${i + 2}`).join(" AND ");
  for (const values of moved) {
    await client.query(`DELETE FROM ${quoteTable(table.name)} WHERE _account = $1 AND ${match}`, [
      provenance.account,
      ...values.slice(0, columns.length),
    ]);
  }
  await client.query(
    `INSERT INTO etl.landing_moves (landing_table, account, row_key, moved_from, moved_to_day, run_id)
     SELECT $1, $2,
            ARRAY(SELECT k FROM json_array_elements_text(m -> 'key') WITH ORDINALITY AS e (k, i) ORDER BY i),
            m ->> 'from', (m ->> 'to')::date, $3
     FROM json_array_elements($4::json) AS m`,
    [
      table.name,
      provenance.account,
      provenance.runId,
      JSON.stringify(
        moved.map((values) => ({
          key: values.slice(0, key.length),
          from: values[key.length],
          to: values[key.length + 1],
        })),
      ),
    ],
  );
}

/**
 * What a window replacement changed, by content (rows have no id): stored rows the read no longer
 * lists (deleted), listed rows not stored before (inserted), rows stored and listed alike
 * (unchanged), and staged rows it skipped as outside the window.
 */
export interface ReplaceCounts {
  readonly deleted: number;
  readonly inserted: number;
  readonly unchanged: number;
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
 * Staged rows of another window are left to that window's own load. Counts what changed by content
 * (see contentDifference): a re-read of the same rows deletes and inserts none.
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
  const difference = await contentDifference(client, table, {
    stored: inWindow,
    staged: window ? ` WHERE s.${win} >= $2::date AND s.${win} < $3::date` : "",
    params: [provenance.account, ...windowParams],
  });
  await client.query(`DELETE FROM ${name} WHERE _account = $1${inWindow}`, [
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
  const written = inserted.rowCount ?? 0;
  return {
    deleted: difference.gone,
    inserted: difference.fresh,
    unchanged: written - difference.fresh,
    outsideWindow: staged - written,
  };
}

/**
 * Deletes the account's rows of a merge table whose window column falls in `window` and whose key
 * the stage does not hold: the rows a re-read of a re-opened window no longer lists (the platform
 * removed them, or moved them to a day outside the window, whose own read merges them). Must run
 * in the load's transaction after the merge of the same stage. Returns how many it deleted.
 */
export async function deleteUnlistedRows(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
  window: DateWindow,
): Promise<number> {
  if (table.key === null || table.windowColumn === undefined)
    throw new Error(`${table.name} has no key or window column to tell unlisted rows by`);
  const column = quoteIdent(table.windowColumn);
  const sameKey = sameColumns(table.key, "s", "t");
  const deleted = await client.query(
    `DELETE FROM ${quoteTable(table.name)} t
     WHERE t._account = $1 AND t.${column} >= $2::date AND t.${column} < $3::date
       AND NOT EXISTS (SELECT 1 FROM ${STAGE_TABLE} s WHERE ${sameKey})`,
    [provenance.account, window.start, window.end],
  );
  return deleted.rowCount ?? 0;
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
