import type pg from "pg";
import type { Logger } from "../../core/log.js";
import { type LandingTable, monthPartitionColumn } from "../connection/landing-table.js";
import { quoteIdent, quoteTable } from "../connection/sql-names.js";
import { forgetKnownPartitions, monthPartitionsOf } from "../load/month-partitions.js";

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
  /** Detached: the plain table the month is kept as (`<partition>_detached`), out of the partitions' names. */
  readonly detachedAs?: string;
}

/** "dropped platform.cdrs_p2024_10 (2418233 rows)", "detached platform.cdrs_p2024_10 as …_detached (…)": a log line's and `runs show`'s. */
export function describeRetired(
  entry: Pick<RetiredPartition, "partition" | "rows" | "action" | "detachedAs">,
): string {
  const done = entry.action === "drop" ? "dropped" : "detached";
  const as = entry.detachedAs === undefined ? "" : ` as ${entry.detachedAs}`;
  return `${done} ${entry.partition}${as} (${entry.rows} rows)`;
}

/** Longest retention waits for a table's lock (loads and dbt reads hold it); past that the month waits for the next run. */
const RETIRE_LOCK_TIMEOUT = "30s";

/** The first day (YYYY-MM-01) of the oldest month kept when `months` whole months before `now`'s month are kept. */
export function retentionCutoff(now: Date, months: number): string {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1));
  return first.toISOString().slice(0, 10);
}

/**
 * The first day (YYYY-MM-01) `table` keeps under `retention` on UTC day `today` (the retention
 * horizon), or undefined when it keeps every month (no `landing_months`, or a table not
 * partitioned by month). Before it, a nightly plans no window, a backfill is refused and a load
 * creates no month partition it does not have to (the next run would retire it again).
 */
export function retentionHorizon(
  retention: { readonly landingMonths: number | null } | undefined,
  table: LandingTable,
  today: string,
): string | undefined {
  if (retention?.landingMonths == null || monthPartitionColumn(table) === null) return undefined;
  return retentionCutoff(new Date(`${today}T00:00:00Z`), retention.landingMonths);
}

/**
 * Detaches month partition `schema.partition` from `parent` and renames it `<partition>_detached`
 * (`_detached_2`, ... when a month was retired before): the partition's name must stay free. A
 * detached table keeping it made `etl.ensure_month_partition` take it for the month's partition,
 * and every later load of a row of that month failed ("no partition of relation").
 */
async function detachUnderOwnName(
  client: pg.PoolClient,
  parent: string,
  schema: string,
  partition: string,
): Promise<string> {
  await client.query(
    `ALTER TABLE ${quoteTable(parent)} DETACH PARTITION ${quoteIdent(schema)}.${quoteIdent(partition)}`,
  );
  const taken = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_catalog.pg_class c
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND starts_with(c.relname, $2)`,
    [schema, `${partition}_detached`],
  );
  const names = new Set(taken.rows.map((r) => r.name));
  let name = `${partition}_detached`;
  for (let n = 2; names.has(name); n++) name = `${partition}_detached_${n}`;
  await client.query(
    `ALTER TABLE ${quoteIdent(schema)}.${quoteIdent(partition)} RENAME TO ${quoteIdent(name)}`,
  );
  return name;
}

/**
 * Retires every month partition older than `cutoff` (YYYY-MM-01) from the given tables: counts its
 * rows, drops or detaches it (renamed `<partition>_detached`), and forgets the stream's window states of that month (the warehouse
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
        let detachedAs: string | undefined;
        if (action === "drop") await client.query(`DROP TABLE ${qualified}`);
        else detachedAs = await detachUnderOwnName(client, table.name, schema, partition);
        await client.query(
          `DELETE FROM etl.stream_state
           WHERE stream = $1 AND window_start >= $2::date AND window_start < ($2::date + interval '1 month')`,
          [stream, month],
        );
        await client.query("COMMIT");
        const entry: RetiredPartition = {
          table: table.name,
          partition: `${schema}.${partition}`,
          month,
          rows,
          action,
          ...(detachedAs === undefined ? {} : { detachedAs: `${schema}.${detachedAs}` }),
        };
        retired.push(entry);
        log.info(entry, `retention: ${describeRetired(entry)}`);
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
