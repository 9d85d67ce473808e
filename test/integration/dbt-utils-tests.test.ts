import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Kysely, sql } from "kysely";
import { pino } from "pino";
import { runDbt } from "../../src/transform/run-dbt.js";
import type { Database } from "../../src/warehouse/connection/database.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { runAt, sandboxConfig } from "./pipeline-harness.js";

/**
 * The project's data tests use dbt_utils's own generic tests (vendored in dbt/packages-vendored), not
 * copies of them; this checks that they keep the meaning the copies had, on the invoices' staging
 * model: a loaded world passes, then a statement whose first billed day is the previous statement's
 * last one (inclusive days: an overlap of one day, which dbt_utils's mutually_exclusive_ranges lets
 * through with a bare end column, hence `period_end_date + 1`) and one that ends before it starts fail
 * their tests, and nothing else does.
 */
it.override({ sandboxOptions: { seed: 35, start: "2026-03-01", days: 75, accounts: 1, callsPerDay: 2 } });

const RANGES =
  "dbt_utils_mutually_exclusive_ranges_stg_platform__invoices_period_start_date__account__period_end_date_1";
const EXPRESSION = "dbt_utils_expression_is_true_stg_platform__invoices_period_start_date_period_end_date";

/**
 * Lands a copy of the account's latest statement under id + `idOffset`, starting `startAfter` days
 * after that statement's last day and ending `length` days after its own start.
 */
async function insertAfterLatest(db: Kysely<Database>, idOffset: number, startAfter: number, length: number) {
  await sql`
    INSERT INTO platform.invoices
    SELECT (jsonb_populate_record(NULL::platform.invoices, to_jsonb(latest) || jsonb_build_object(
      'id', latest.id + ${idOffset}::bigint,
      'from_date', latest.to_date + ${startAfter}::int,
      'to_date', latest.to_date + ${startAfter + length}::int))).*
    FROM (SELECT * FROM platform.invoices ORDER BY to_date DESC LIMIT 1) AS latest`.execute(db);
}

describe("dbt_utils's tests keep the copied tests' meaning", () => {
  it("passes on loaded invoices; fails on a one-day overlap and on a period ending before it starts", {
    timeout: 300_000,
  }, async ({ sandbox, database }) => {
    const base = sandboxConfig(sandbox);
    const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams: ["invoices"] })) };
    await runAt(database.warehouse, config, sandbox, { command: "run" });
    const db = database.warehouse.db;
    const invoices = await sql<{ n: number }>`SELECT count(*)::int AS n FROM platform.invoices`.execute(db);
    expect(invoices.rows[0]?.n).toBeGreaterThan(1);
    const workDir = await mkdtemp(path.join(tmpdir(), "dbt-utils-tests-"));
    const dbt = (args: string[]) =>
      runDbt({ databaseUrl: database.url, log: pino({ level: "silent" }), workDir, args });
    try {
      const passing = await dbt([
        "build",
        "--select",
        "stg_platform__invoices",
        "--indirect-selection",
        "cautious",
      ]);
      expect(passing.ok, passing.tail.join("\n")).toBe(true);
      expect(passing.summary).toMatch(/PASS=[1-9]/);

      // A copy of the latest statement starting on the day it ends: only the ranges test fails.
      await insertAfterLatest(db, 1_000_000, 0, 20);
      const overlapping = await dbt([
        "test",
        "--select",
        "stg_platform__invoices",
        "--indirect-selection",
        "cautious",
      ]);
      expect(overlapping.failures.map((f) => f.name)).toEqual([RANGES]);

      // Instead, one ending the day before it starts: the expression test fails.
      await sql`DELETE FROM platform.invoices WHERE id > 1000000`.execute(db);
      await insertAfterLatest(db, 2_000_000, 60, -1);
      const backwards = await dbt([
        "test",
        "--select",
        "stg_platform__invoices",
        "--indirect-selection",
        "cautious",
      ]);
      expect(backwards.failures.map((f) => f.name)).toContain(EXPRESSION);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
