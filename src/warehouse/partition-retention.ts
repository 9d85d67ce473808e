import type pg from "pg";
import type { Logger } from "../log.js";
import { type LandingTable, monthPartitionColumn } from "./landing-table.js";
import { forgetKnownPartitions } from "./month-partitions.js";
import { quoteIdent, quoteTable } from "./sql-names.js";

/** A table partitioned by month and the stream whose windows it holds. */
export interface PartitionedTarget {
  readonly stream: string;
  readonly table: LandingTable;
}

/** One month partition retention removed: recorded in `etl.runs.retired_partitions` and logged. */
export interface RetiredPartition {
  readonly table: string;
  readonly partition: string;
  /** First day of the month (YYYY-MM-01). */
  readonly month: string;
  readonly rows: number;
  readonly action: "drop" | "detach";
}

/** Longest retention waits for a table's lock (loads and dbt reads hold it); past that the month waits for the next run. */
const RETIRE_LOCK_TIMEOUT = "30s";

/** The first day (YYYY-MM-01) of the oldest month kept when `months` whole months before `now`'s month are kept. */
export function retentionCutoff(now: Date, months: number): string {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1));
  return first.toISOString().slice(0, 10);
}

/** The month partitions of `table` (named `<table>_pYYYY_MM` by etl.ensure_month_partition), oldest first. */
async function monthPartitionsOf(
  pool: pg.Pool,
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

/**
 * Retires every month partition older than `cutoff` (YYYY-MM-01) from the given tables: counts its
 * rows, drops or detaches it, and forgets the stream's window states of that month (the warehouse
 * no longer holds those windows, so a later backfill of them loads them again), in one transaction
 * per partition. A partition whose table stays locked past 30 s is left for the next run (logged).
 * Each retired partition is logged; the list is returned for the run's record.
 */
export async function retireMonthPartitions(
  pool: pg.Pool,
  targets: readonly PartitionedTarget[],
  cutoff: string,
  action: "drop" | "detach",
  log: Logger,
): Promise<RetiredPartition[]> {
  const retired: RetiredPartition[] = [];
  for (const { stream, table } of targets) {
    if (monthPartitionColumn(table) === null) continue;
    const [schema] = table.name.split(".") as [string, string];
    for (const { partition, month } of await monthPartitionsOf(pool, table)) {
      if (month >= cutoff) continue;
      const qualified = `${quoteIdent(schema)}.${quoteIdent(partition)}`;
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(`SET LOCAL lock_timeout = '${RETIRE_LOCK_TIMEOUT}'`);
        const counted = await client.query<{ rows: string }>(`SELECT count(*) AS rows FROM ${qualified}`);
        const rows = Number(counted.rows[0]!.rows);
        await client.query(
          action === "drop"
            ? `DROP TABLE ${qualified}`
            : `ALTER TABLE ${quoteTable(table.name)} DETACH PARTITION ${qualified}`,
        );
        await client.query(
          `DELETE FROM etl.stream_state
           WHERE stream = $1 AND window_start >= $2::date AND window_start < ($2::date + interval '1 month')`,
          [stream, month],
        );
        await client.query("COMMIT");
        const entry = { table: table.name, partition: `${schema}.${partition}`, month, rows, action };
        retired.push(entry);
        log.info(
          entry,
          `retention: ${action === "drop" ? "dropped" : "detached"} ${entry.partition} (${rows} rows)`,
        );
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        if ((error as { code?: unknown }).code !== "55P03") throw error;
        log.warn(
          { table: table.name, partition: `${schema}.${partition}`, month },
          `retention: ${schema}.${partition} stayed locked for ${RETIRE_LOCK_TIMEOUT}; it is retired by a later run`,
        );
      } finally {
        client.release();
      }
    }
  }
  if (retired.length > 0) forgetKnownPartitions(pool);
  return retired;
}
