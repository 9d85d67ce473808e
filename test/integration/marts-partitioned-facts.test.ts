import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { type Kysely, sql } from "kysely";
import { pino } from "pino";
import { runDbt } from "../../src/transform/run-dbt.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import type { Database } from "../../src/warehouse/connection/database.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts, loadMartStreamsAt, relationsPlanned } from "./marts-build.js";

/**
 * Issue 17, facts partitioned by month: fct_calls, fct_messages, fct_campaign_messages,
 * fct_link_clicks and fct_ledger_transactions are built partitioned by month of their day (fct_calls' months' legs in their
 * partitions: the oracle is the sandbox's truth export, counted by month); write–audit–publish
 * copies and moves them with their partitions; a nightly's merge (fct_calls) and delete+insert
 * (the others) read only the months of their window (their plans prune the others); a call and a
 * message the platform moved to another month are kept once; the nightly leaves what a
 * --full-refresh builds. A world across July and August 2026, loaded once after its end: the
 * moves are made in the landing tables, so the builds alone are compared.
 */
it.override({
  sandboxOptions: {
    seed: 29,
    start: "2026-07-20",
    days: 20,
    accounts: 1,
    callsPerDay: 60,
    now: "2026-08-10T12:00:00Z",
  },
});

const MARTS = "analytics_marts";
/** The partitioned facts and the key each is read in order of. */
const FACTS: Readonly<Record<string, string>> = {
  fct_calls: "account, direction, call_uuid",
  fct_messages: "account, message_id",
  fct_campaign_messages: "account, message_id",
  fct_link_clicks: "account, click_date, click_ordinal",
  fct_ledger_transactions: "account, ledger_account, transaction_id",
};
const BOTH_MONTHS = (fact: string) => [`${fact}_p2026_07`, `${fact}_p2026_08`];

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

/** Rows per partition of `schema.table`, by partition name. */
async function partitionRows(
  warehouse: Warehouse,
  schema: string,
  table: string,
): Promise<Record<string, number>> {
  const { rows } = await sql<{ partition: string; n: number }>`
    SELECT c.relname AS partition, count(f.*)::int AS n
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    LEFT JOIN ${sql.table(`${schema}.${table}`)} f ON f.tableoid = c.oid
    WHERE i.inhparent = ${`${schema}.${table}`}::regclass
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

/** When fct_calls of `schema` and each of its partitions were last analyzed by hand (ISO), by name. */
async function lastAnalyzed(warehouse: Warehouse, schema: string): Promise<Record<string, string>> {
  const { rows } = await sql<{ name: string; at: string }>`
    SELECT relname AS name, last_analyze::text AS at FROM pg_stat_user_tables
    WHERE schemaname = ${schema} AND relname ~ '^fct_calls($|_p)'`.execute(warehouse.db);
  return Object.fromEntries(rows.map((r) => [r.name, r.at]));
}

/** Every row of every partitioned fact as text, in key order, without the build stamp. */
async function readFacts(warehouse: Warehouse): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [fact, key] of Object.entries(FACTS)) {
    const { rows } = await sql<{ line: string }>`
      SELECT (to_jsonb(f) - 'built_at')::text AS line FROM ${sql.table(`${MARTS}.${fact}`)} AS f
      ORDER BY ${sql.raw(key)}`.execute(warehouse.db);
    out[fact] = rows.map((r) => r.line);
  }
  return out;
}

/**
 * The partitions the plan of `statement` (one statement dbt ran on the build schema, reading its
 * new rows from a temporary table since dropped) reads, on the published `fact`.
 */
async function partitionsPlanned(db: Kysely<Database>, statement: string, fact: string): Promise<string[]> {
  const source = /(?:using|from)\s+("[^"]+")\s+as\s+DBT_INTERNAL_SOURCE/i.exec(statement)?.[1];
  expect(source, statement).toBeDefined();
  return db.connection().execute(async (connection) => {
    await sql`CREATE TEMPORARY TABLE new_rows AS SELECT * FROM ${sql.table(`${MARTS}.${fact}`)} LIMIT 0`.execute(
      connection,
    );
    const names = await relationsPlanned(
      connection,
      statement.replaceAll('"analytics_marts__build"', `"${MARTS}"`).replaceAll(source!, "pg_temp.new_rows"),
    );
    await sql`DROP TABLE pg_temp.new_rows`.execute(connection);
    return names.filter((name) => name.startsWith(`${fact}_p`));
  });
}

describe("facts partitioned by month", () => {
  it("builds the facts in month partitions, publishes them with them, writes a nightly into its window's months only", {
    timeout: 600_000,
  }, async ({ sandbox, database }) => {
    const warehouse = database.warehouse;
    const db = warehouse.db;
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-10T12:00:00Z");
    await buildMarts(warehouse, ["--full-refresh"]);

    for (const fact of Object.keys(FACTS)) {
      const relkind = await sql<{ kind: string }>`
        SELECT relkind AS kind FROM pg_class WHERE oid = ${`${MARTS}.${fact}`}::regclass`.execute(db);
      expect(relkind.rows[0]?.kind, fact).toBe("p");
      expect(Object.keys(await partitionRows(warehouse, MARTS, fact)), fact).toEqual(BOTH_MONTHS(fact));
    }
    const truth = await truthLegsByMonth(sandbox);
    expect(Object.keys(truth).sort()).toEqual(["2026-07", "2026-08"]);
    expect(await partitionRows(warehouse, MARTS, "fct_calls")).toEqual({
      fct_calls_p2026_07: truth["2026-07"],
      fct_calls_p2026_08: truth["2026-08"],
    });
    // The key holds the partition column; the grain (the key alone) is still one row per leg.
    const key = await sql<{ key: string }>`
      SELECT pg_get_constraintdef(oid) AS key FROM pg_constraint
      WHERE conrelid = 'analytics_marts.fct_calls'::regclass AND contype = 'p'`.execute(db);
    expect(key.rows[0]?.key).toBe("PRIMARY KEY (account, direction, call_uuid, call_date)");

    // The platform moves a July leg and a July message to August 6 (a day in the nightly's settle
    // window, which starts on August 5). A transactional message: a campaign message moved out of
    // a settled day would leave that day's rpt_campaign_daily row stale, which the campaign
    // reports' test refuses (docs/explanation/partitions-and-retention.md).
    const [leg] = (
      await sql<{ account: string; direction: string; uuid: string }>`
        SELECT _account AS account, direction, uuid FROM platform.cdrs
        WHERE date < '2026-07-25' ORDER BY uuid LIMIT 1`.execute(db)
    ).rows;
    const [message] = (
      await sql<{ account: string; id: string }>`
        SELECT _account AS account, message_id AS id FROM platform.messages
        WHERE submitted_at < '2026-07-25' AND tag IS NULL AND direction = 'outbound' ORDER BY message_id LIMIT 1`.execute(
        db,
      )
    ).rows;
    expect(leg).toBeDefined();
    expect(message).toBeDefined();
    // As the loader moves a row: the landing row's date changes and the move is logged (the
    // loader's side of this is tested in partitioned-landing.test.ts).
    await sql`UPDATE platform.cdrs SET date = '2026-08-06T10:00:00Z'
              WHERE _account = ${leg!.account} AND direction = ${leg!.direction} AND uuid = ${leg!.uuid}`.execute(
      db,
    );
    await sql`UPDATE platform.messages SET submitted_at = '2026-08-06T10:00:00Z'
              WHERE _account = ${message!.account} AND message_id = ${message!.id}`.execute(db);
    await sql`INSERT INTO etl.landing_moves (landing_table, account, row_key, moved_from, moved_to_day) VALUES
              ('platform.cdrs', ${leg!.account}, ARRAY[${leg!.direction}, ${leg!.uuid}], '2026-07-20', '2026-08-06'),
              ('platform.messages', ${message!.account}, ARRAY[${message!.id}], '2026-07-20', '2026-08-06')`.execute(
      db,
    );

    // First nightly: starts from copies of the published tables (partitioned, as published).
    await buildMarts(warehouse, [], async ({ mainStatement }) => {
      // fct_calls' MERGE and the others' DELETE of their window's days read August only: July's
      // partition is pruned from their plans.
      const merge = await mainStatement("fct_calls");
      expect(
        await partitionsPlanned(db, merge.slice(merge.toLowerCase().indexOf("merge into")), "fct_calls"),
      ).toEqual(["fct_calls_p2026_08"]);
      for (const fact of [
        "fct_messages",
        "fct_campaign_messages",
        "fct_link_clicks",
        "fct_ledger_transactions",
      ]) {
        const statement = await mainStatement(fact);
        const deleteDays = /delete from [^;]* as DBT_INTERNAL_DEST[^;]*/i.exec(statement)?.[0];
        expect(deleteDays, statement).toBeDefined();
        expect(await partitionsPlanned(db, deleteDays!, fact), fact).toEqual([`${fact}_p2026_08`]);
      }
    });
    const movedLeg = await sql<{ day: string }>`
      SELECT call_date::text AS day FROM analytics_marts.fct_calls
      WHERE account = ${leg!.account} AND direction = ${leg!.direction} AND call_uuid = ${leg!.uuid}`.execute(
      db,
    );
    expect(movedLeg.rows).toEqual([{ day: "2026-08-06" }]);
    expect(await partitionRows(warehouse, MARTS, "fct_calls")).toEqual({
      fct_calls_p2026_07: truth["2026-07"]! - 1,
      fct_calls_p2026_08: truth["2026-08"]! + 1,
    });
    const movedMessage = await sql<{ day: string }>`
      SELECT submitted_date::text AS day FROM analytics_marts.fct_messages
      WHERE account = ${message!.account} AND message_id = ${message!.id}`.execute(db);
    expect(movedMessage.rows).toEqual([{ day: "2026-08-06" }]);
    expect(await strayPartitions(warehouse)).toEqual([]);
    // The publication kept the full refresh's tables with their partitions for the next build.
    for (const fact of Object.keys(FACTS))
      expect(Object.keys(await partitionRows(warehouse, "analytics_marts__previous", fact)), fact).toEqual(
        BOTH_MONTHS(fact),
      );

    // Second nightly: continues from the kept tables (moved into the build schema with their
    // partitions, then published with them) and catches up; equal to a --full-refresh. The
    // platform re-prices the legs of the window's days: more than a tenth of August's legs change,
    // so August's partition alone is analyzed after the merge (macro analyze_if_stale).
    await sql`UPDATE platform.cdrs SET charge = coalesce(charge, 0) + 0.0001 WHERE date >= '2026-08-05'`.execute(
      db,
    );
    // (Statistics as a quiet week leaves them: the kept table and its partitions analyzed.)
    await sql`ANALYZE analytics_marts__previous.fct_calls`.execute(db);
    const analyzedBefore = await lastAnalyzed(warehouse, "analytics_marts__previous");
    await buildMarts(warehouse, []);
    const analyzedAfter = await lastAnalyzed(warehouse, MARTS);
    expect(analyzedAfter.fct_calls).toBe(analyzedBefore.fct_calls);
    expect(analyzedAfter.fct_calls_p2026_07).toBe(analyzedBefore.fct_calls_p2026_07);
    expect(analyzedAfter.fct_calls_p2026_08! > analyzedBefore.fct_calls_p2026_08!).toBe(true);
    expect(await strayPartitions(warehouse)).toEqual([]);
    const nightly = await readFacts(warehouse);
    await buildMarts(warehouse, ["--full-refresh"]);
    expect(nightly).toEqual(await readFacts(warehouse));
    expect(nightly.fct_calls!.filter((line) => line.includes(leg!.uuid))).toHaveLength(1);
    expect(nightly.fct_link_clicks!.length).toBeGreaterThan(0);

    // dbt run by hand in place, --full-refresh twice: the second finds its partitions' names free.
    const workDir = await mkdtemp(path.join(tmpdir(), "partitioned-in-place-"));
    try {
      for (let i = 0; i < 2; i++) {
        const result = await runDbt({
          databaseUrl: warehouse.url,
          log: pino({ level: "silent" }),
          workDir,
          args: ["run", "--select", ...Object.keys(FACTS), "--full-refresh"],
        });
        expect(result.ok, result.tail.join("\n")).toBe(true);
      }
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
    for (const fact of Object.keys(FACTS))
      expect(Object.keys(await partitionRows(warehouse, MARTS, fact)), fact).toEqual(BOTH_MONTHS(fact));
    expect(await readFacts(warehouse)).toEqual(nightly);
  });
});
