/**
 * Planner statistics of the landing tables a run changed, refreshed right after the load.
 *
 * A nightly load appends the newest days to tables whose statistics autovacuum sampled days ago
 * (it re-analyzes a table only after a tenth of it changed, and a day is about one percent of a
 * 90-day table). The planner then takes the new days for a handful of rows, and the marts' window
 * reads (dbt's incremental builds read the last days by date) get nested loops over tens of
 * thousands of rows: 1.8 s instead of 1.1 s for `fct_calls` on a 90-day warehouse.
 */
import { type Kysely, sql } from "kysely";
import { describeError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import type { Database } from "../connection/database.js";
import { quoteTable } from "../connection/sql-names.js";

/** How long `ANALYZE` waits for a table's lock (held by a concurrent ANALYZE or VACUUM) before giving up. */
const LOCK_TIMEOUT = "5s";

/**
 * `ANALYZE`s each table (of a table partitioned by month, the partitions of the months run `runId`
 * changed: see tablesToAnalyze), one at a time, each in its own transaction with a short lock timeout. A
 * table that cannot be analyzed (its lock held too long, no privilege) is a warning, not a failed
 * run: autovacuum analyzes it later, and only the marts' build is slower meanwhile.
 */
export async function refreshPlannerStatistics(
  db: Kysely<Database>,
  tables: readonly string[],
  log: Logger,
  runId: number,
): Promise<void> {
  for (const table of await tablesToAnalyze(db, tables, runId)) {
    const started = performance.now();
    try {
      await db.transaction().execute(async (tx) => {
        await sql`SET LOCAL lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(tx);
        await sql`ANALYZE ${sql.raw(quoteTable(table))}`.execute(tx);
      });
      log.debug({ table, ms: Math.round(performance.now() - started) }, "planner statistics refreshed");
    } catch (error) {
      log.warn({ table, error: describeError(error) }, "planner statistics not refreshed (autovacuum will)");
    }
  }
}

/**
 * The tables to `ANALYZE` for `tables`: a flat table itself; for a table partitioned by month,
 * only its partitions of the months whose windows run `runId` (or its work units) changed, never
 * the parent: `ANALYZE` of a partitioned table samples every partition, a cost that grows with the
 * months the table holds, while a nightly load changes one or two of them. The planner reads a
 * pruned scan's estimates from its partitions; months a load wrote outside its windows (a replay)
 * are left to autovacuum.
 */
async function tablesToAnalyze(
  db: Kysely<Database>,
  tables: readonly string[],
  runId: number,
): Promise<string[]> {
  const unique = [...new Set(tables)];
  const partitioned = await sql<{ name: string }>`
    SELECT t.name FROM unnest(${unique}::text[]) AS t(name)
    JOIN pg_catalog.pg_partitioned_table p ON p.partrelid = to_regclass(t.name)`.execute(db);
  if (partitioned.rows.length === 0) return unique;
  const parents = new Set(partitioned.rows.map((r) => r.name));
  const months = await sql<{ month: string }>`
    SELECT DISTINCT to_char(m, 'YYYY_MM') AS month
    FROM etl.run_slices s
    CROSS JOIN LATERAL generate_series(date_trunc('month', s.window_start), s.window_end - 1, interval '1 month') AS m
    WHERE (s.run_id = ${runId}
           OR s.run_id IN (SELECT id FROM etl.runs WHERE arguments->>'unit_of_run' = ${String(runId)}))
      AND s.window_start IS NOT NULL AND s.window_end > s.window_start
      AND s.rows_inserted + s.rows_updated + s.rows_deleted > 0
    ORDER BY 1`.execute(db);
  const partitions = unique.flatMap((name) =>
    parents.has(name) ? months.rows.map((r) => `${name}_p${r.month}`) : [name],
  );
  const existing = await sql<{ name: string }>`
    SELECT t.name FROM unnest(${partitions}::text[]) WITH ORDINALITY AS t(name, n)
    WHERE to_regclass(t.name) IS NOT NULL ORDER BY t.n`.execute(db);
  return existing.rows.map((r) => r.name);
}
