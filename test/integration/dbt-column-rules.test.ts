import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { pino } from "pino";
import { runDbt } from "../../src/transform/run-dbt.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { runAt, sandboxConfig } from "./pipeline-harness.js";

/**
 * The `column_rules` generic test (dbt/tests/generic/column_rules.sql) stands in for a model's
 * grain test and its per-column not_null / non_negative tests, so it must fail on exactly what
 * those would: a small world is loaded and built (every rule passes), then one row of the daily
 * cost mart gets a null where a value is required, another a negative cost, and a third is
 * duplicated, and one call leg gets an answered_by the platform does not send. Both models' tests
 * then fail, and the rows they store name each broken rule with its count.
 */
it.override({ sandboxOptions: { seed: 41, start: "2026-05-01", days: 2, accounts: 1, callsPerDay: 80 } });

const MART = "analytics_marts.rpt_call_cost_daily";
const TEST = "column_rules_rpt_call_cost_daily";
const FACT_TEST = "column_rules_fct_calls";

async function dbt(databaseUrl: string, workDir: string, args: string[]) {
  return runDbt({ databaseUrl, log: pino({ level: "silent" }), workDir, args });
}

/** The rows dbt stored for the failing test (`--store-failures`), wherever its audit schema is. */
async function storedFailures(warehouse: Warehouse) {
  const found = await sql<{ schema: string }>`
    SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = ${TEST}`.execute(
    warehouse.db,
  );
  expect(found.rows).toHaveLength(1);
  const schema = found.rows[0]?.schema ?? "";
  const stored = await sql<{ column_name: string; rule: string; broken_rows: number }>`
    SELECT column_name, rule, broken_rows::int AS broken_rows
    FROM ${sql.table(`${schema}.${TEST}`)} ORDER BY rule, column_name`.execute(warehouse.db);
  return stored.rows;
}

describe("column_rules: a model's grain, not-null and non-negative columns in one test", () => {
  it("passes on the built marts; fails on a null, a negative cost, a duplicated key and an unknown enum value, naming each", {
    timeout: 300_000,
  }, async ({ sandbox, database }) => {
    const base = sandboxConfig(sandbox);
    const config = {
      ...base,
      accounts: base.accounts.map((a) => ({ ...a, streams: ["cdrs", "sip_trunks"] })),
    };
    await runAt(database.warehouse, config, sandbox, { command: "run" });
    const workDir = await mkdtemp(path.join(tmpdir(), "column-rules-"));
    try {
      const built = await dbt(database.url, workDir, [
        "build",
        "--select",
        "+rpt_call_cost_daily",
        "--resource-type",
        "model",
        "--resource-type",
        "seed",
      ]);
      expect(built.ok, built.tail.join("\n")).toBe(true);
      const passing = await dbt(database.url, workDir, ["test", "--select", TEST, FACT_TEST]);
      expect(passing.ok, passing.tail.join("\n")).toBe(true);

      const db = database.warehouse.db;
      const [first, second, third] = (
        await sql<{
          ctid: string;
        }>`SELECT ctid::text AS ctid FROM ${sql.table(MART)} ORDER BY ctid LIMIT 3`.execute(db)
      ).rows.map((r) => r.ctid);
      expect(third).toBeDefined();
      await sql`UPDATE ${sql.table(MART)} SET legs = NULL WHERE ctid = ${first}::tid`.execute(db);
      await sql`UPDATE ${sql.table(MART)} SET total_cost_usd = -0.01 WHERE ctid = ${second}::tid`.execute(db);
      // The mart's primary key (on grain_key, the grain's hash) refuses a duplicate itself; it is
      // dropped here so that what is checked is the data test's own finding of one.
      await sql`ALTER TABLE ${sql.table(MART)} DROP CONSTRAINT rpt_call_cost_daily_pkey`.execute(db);
      await sql`INSERT INTO ${sql.table(MART)} SELECT * FROM ${sql.table(MART)} WHERE ctid = ${third}::tid`.execute(
        db,
      );

      const failing = await dbt(database.url, workDir, ["test", "--select", TEST, "--store-failures"]);
      expect(failing.ok).toBe(false);
      expect(failing.failures.map((f) => f.name)).toEqual([TEST]);
      expect(await storedFailures(database.warehouse)).toEqual([
        { column_name: "total_cost_usd", rule: "non_negative", broken_rows: 1 },
        { column_name: "legs", rule: "not_null", broken_rows: 1 },
        {
          column_name: "account, call_date, direction, destination",
          rule: "unique_combination",
          broken_rows: 1,
        },
      ]);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
