import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { pino } from "pino";
import type { RunningSandbox } from "../../src/sandbox/start-sandbox.js";
import { runDbt } from "../../src/transform/run-dbt.js";
import type { Warehouse } from "../../src/warehouse/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts, loadMartStreamsAt } from "./marts-build.js";

/**
 * Issue 17, facts partitioned by month: fct_calls is built partitioned by month of call_date, its
 * months' rows in their partitions (the oracle: the sandbox's truth export, counted by month);
 * write–audit–publish copies and moves it with its partitions; a nightly's merge reads only the
 * months of its window (its plan prunes the others) and keeps a leg once when the platform moved
 * it to another month; the nightly leaves what a --full-refresh builds. A world across July and
 * August 2026, loaded once after its end: the changes are made in the landing table, so the
 * builds alone are compared.
 */
it.override({
  sandboxOptions: {
    seed: 29,
    start: "2026-07-20",
    days: 14,
    accounts: 1,
    callsPerDay: 60,
    now: "2026-08-05T12:00:00Z",
  },
});

const MARTS = "analytics_marts";

/** Legs per month (YYYY-MM) in the sandbox's truth export. */
async function truthLegsByMonth(sandbox: RunningSandbox): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const account of sandbox.world.accounts) {
    const url = `${sandbox.url}/_sandbox/truth/cdrs?account=${account.name}&from=${sandbox.world.start}&to=2026-12-31`;
    const response = await fetch(url);
    expect(response.status).toBe(200);
    for (const line of (await response.text()).split("\n")) {
      if (line.trim() === "") continue;
      const month = String((JSON.parse(line) as { date: string }).date).slice(0, 7);
      counts[month] = (counts[month] ?? 0) + 1;
    }
  }
  return counts;
}

/** Rows per partition of `schema.fct_calls`, by partition name. */
async function partitionRows(warehouse: Warehouse, schema: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ partition: string; n: number }>`
    SELECT c.relname AS partition, count(f.*)::int AS n
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    LEFT JOIN ${sql.table(`${schema}.fct_calls`)} f ON f.tableoid = c.oid
    WHERE i.inhparent = ${`${schema}.fct_calls`}::regclass
    GROUP BY 1 ORDER BY 1`.execute(warehouse.db);
  return Object.fromEntries(rows.map((r) => [r.partition, r.n]));
}

/** Partitions (of any table) that are not in their parent's schema: must be none. */
async function strayPartitions(warehouse: Warehouse): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.oid::regclass::text AS name
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE c.relnamespace <> p.relnamespace`.execute(warehouse.db);
  return rows.map((r) => r.name);
}

async function fctCalls(warehouse: Warehouse): Promise<string[]> {
  const { rows } = await sql<{ line: string }>`
    SELECT (to_jsonb(f) - 'built_at')::text AS line FROM analytics_marts.fct_calls AS f
    ORDER BY account, direction, call_uuid`.execute(warehouse.db);
  return rows.map((r) => r.line);
}

describe("facts partitioned by month", () => {
  it("builds fct_calls in month partitions, publishes them with it, merges a nightly into its window's months only", {
    timeout: 600_000,
  }, async ({ sandbox, database }) => {
    const warehouse = database.warehouse;
    const db = warehouse.db;
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-05T12:00:00Z");
    await buildMarts(warehouse, ["--full-refresh"]);

    const relkind = await sql<{ kind: string }>`
      SELECT relkind AS kind FROM pg_class WHERE oid = 'analytics_marts.fct_calls'::regclass`.execute(db);
    expect(relkind.rows[0]?.kind).toBe("p");
    const truth = await truthLegsByMonth(sandbox);
    expect(Object.keys(truth).sort()).toEqual(["2026-07", "2026-08"]);
    expect(await partitionRows(warehouse, MARTS)).toEqual({
      fct_calls_p2026_07: truth["2026-07"],
      fct_calls_p2026_08: truth["2026-08"],
    });
    // The key holds the partition column; the grain (the key alone) is still one row per leg.
    const key = await sql<{ key: string }>`
      SELECT pg_get_constraintdef(oid) AS key FROM pg_constraint
      WHERE conrelid = 'analytics_marts.fct_calls'::regclass AND contype = 'p'`.execute(db);
    expect(key.rows[0]?.key).toBe("PRIMARY KEY (account, direction, call_uuid, call_date)");

    // The platform moves a July leg to August 1 (a day in the nightly's settle window).
    const [leg] = (
      await sql<{ account: string; direction: string; uuid: string }>`
        SELECT _account AS account, direction, uuid FROM platform.cdrs
        WHERE date < '2026-07-25' ORDER BY uuid LIMIT 1`.execute(db)
    ).rows;
    expect(leg).toBeDefined();
    await sql`UPDATE platform.cdrs SET date = '2026-08-01T10:00:00Z'
              WHERE _account = ${leg!.account} AND direction = ${leg!.direction} AND uuid = ${leg!.uuid}`.execute(
      db,
    );

    // First nightly: starts from a copy of the published table (partitioned, as published).
    await buildMarts(warehouse, [], async ({ mainStatement }) => {
      // The merge of the nightly's rows reads August only: July's partition is pruned from its plan.
      const statement = await mainStatement("fct_calls");
      const merge = statement.slice(statement.toLowerCase().indexOf("merge into"));
      const source = /using\s+("[^"]+")\s+as\s+DBT_INTERNAL_SOURCE/i.exec(merge)?.[1];
      expect(source).toBeDefined();
      await db.connection().execute(async (connection) => {
        await sql`CREATE TEMPORARY TABLE nightly_rows AS SELECT * FROM analytics_marts.fct_calls LIMIT 0`.execute(
          connection,
        );
        const plan = await sql<{ "QUERY PLAN": unknown }>`EXPLAIN (FORMAT JSON) ${sql.raw(
          merge.replaceAll('"analytics_marts__build"', `"${MARTS}"`).replace(source!, "pg_temp.nightly_rows"),
        )}`.execute(connection);
        const scanned = [
          ...JSON.stringify(plan.rows[0]!["QUERY PLAN"]).matchAll(/"Relation Name":"([^"]+)"/g),
        ].map((m) => m[1]);
        expect(scanned).toContain("fct_calls_p2026_08");
        expect(scanned).not.toContain("fct_calls_p2026_07");
      });
    });
    const moved = await sql<{ call_date: string }>`
      SELECT call_date::text FROM analytics_marts.fct_calls
      WHERE account = ${leg!.account} AND direction = ${leg!.direction} AND call_uuid = ${leg!.uuid}`.execute(
      db,
    );
    expect(moved.rows).toEqual([{ call_date: "2026-08-01" }]);
    expect(await partitionRows(warehouse, MARTS)).toEqual({
      fct_calls_p2026_07: truth["2026-07"]! - 1,
      fct_calls_p2026_08: truth["2026-08"]! + 1,
    });
    expect(await strayPartitions(warehouse)).toEqual([]);
    // The publication kept the full refresh's table with its partitions for the next build.
    expect(Object.keys(await partitionRows(warehouse, "analytics_marts__previous"))).toEqual([
      "fct_calls_p2026_07",
      "fct_calls_p2026_08",
    ]);

    // Second nightly: continues from the kept table (moved into the build schema with its
    // partitions, then published with them) and catches up; equal to a --full-refresh.
    await buildMarts(warehouse, []);
    expect(await strayPartitions(warehouse)).toEqual([]);
    const nightly = await fctCalls(warehouse);
    await buildMarts(warehouse, ["--full-refresh"]);
    expect(nightly).toEqual(await fctCalls(warehouse));
    expect(nightly.filter((line) => line.includes(leg!.uuid))).toHaveLength(1);

    // dbt run by hand in place, --full-refresh twice: the second finds its partitions' names free.
    const workDir = await mkdtemp(path.join(tmpdir(), "partitioned-in-place-"));
    try {
      for (let i = 0; i < 2; i++) {
        const result = await runDbt({
          databaseUrl: warehouse.url,
          log: pino({ level: "silent" }),
          workDir,
          args: ["run", "--select", "fct_calls", "--full-refresh"],
        });
        expect(result.ok, result.tail.join("\n")).toBe(true);
      }
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
    expect(Object.keys(await partitionRows(warehouse, MARTS))).toEqual([
      "fct_calls_p2026_07",
      "fct_calls_p2026_08",
    ]);
    expect(await fctCalls(warehouse)).toEqual(nightly);
  });
});
