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
import { describeError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Database } from "./database.js";
import { quoteTable } from "./sql-names.js";

/** How long `ANALYZE` waits for a table's lock (held by a concurrent ANALYZE or VACUUM) before giving up. */
const LOCK_TIMEOUT = "5s";

/**
 * `ANALYZE`s each table, one at a time, each in its own transaction with a short lock timeout. A
 * table that cannot be analyzed (its lock held too long, no privilege) is a warning, not a failed
 * run: autovacuum analyzes it later, and only the marts' build is slower meanwhile.
 */
export async function refreshPlannerStatistics(
  db: Kysely<Database>,
  tables: readonly string[],
  log: Logger,
): Promise<void> {
  for (const table of new Set(tables)) {
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
