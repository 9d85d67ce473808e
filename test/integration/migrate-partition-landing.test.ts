import { sql } from "kysely";
import { migrateToLatest } from "../../src/warehouse/connection/migrate.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { migrateBefore } from "../helpers/migrate-before.js";

/**
 * Migration 0023 on a warehouse loaded before partitioning: every dated row moves into its month's
 * partition, a CDR without a date (loadable before such rows became rejects) goes to etl.rejects
 * with its reason, and the dbt staging view over the old table goes (the next transform rebuilds it).
 */
describe("migration 0023: the large landing tables become partitioned by month", () => {
  it("moves the rows into month partitions, files undated CDRs as rejects, drops the staging view", async ({
    createDatabase,
  }) => {
    const database = await createDatabase({ migrate: false });
    const db = database.warehouse.db;
    await migrateBefore(db, "0023");
    await sql`
      INSERT INTO platform.cdrs (_account, direction, uuid, date, from_number, to_number, disposition, duration, _run_id, _extracted_at)
      VALUES ('acme', 'placed', 'u1', '2024-02-29T23:59:59Z', '1', '2', 'answered', 10, 1, now()),
             ('acme', 'placed', 'u2', '2024-03-01T00:00:00Z', '1', '2', 'answered', 20, 1, now()),
             ('acme', 'received', 'u1', '2024-03-05T12:00:00Z', '1', '2', 'answered', 30, 1, now()),
             ('acme', 'placed', 'undated', NULL, '1', '2', 'failed', 0, 1, now())`.execute(db);
    await sql`
      INSERT INTO platform.transactions (_account, ledger_account, id, date, amount, balance_after, status, type, show_invoice, _run_id, _extracted_at)
      VALUES ('acme', 'acme', 1, '2023-12-31T10:00:00Z', -1.5, 10, 'ok', 1, true, 1, now())`.execute(db);
    await sql`CREATE SCHEMA analytics_staging`.execute(db);
    await sql`CREATE VIEW analytics_staging.stg_platform__cdrs AS SELECT uuid FROM platform.cdrs`.execute(db);

    const applied = await migrateToLatest(db);
    expect(applied.applied).toContain("0023_partition_large_landing_tables");

    const cdrs = await sql<{ partition: string; direction: string; uuid: string; duration: number }>`
      SELECT tableoid::regclass::text AS partition, direction, uuid, duration FROM platform.cdrs ORDER BY uuid, direction`.execute(
      db,
    );
    expect(cdrs.rows).toEqual([
      { partition: "platform.cdrs_p2024_02", direction: "placed", uuid: "u1", duration: 10 },
      { partition: "platform.cdrs_p2024_03", direction: "received", uuid: "u1", duration: 30 },
      { partition: "platform.cdrs_p2024_03", direction: "placed", uuid: "u2", duration: 20 },
    ]);
    const ledger = await sql<{
      partition: string;
    }>`SELECT tableoid::regclass::text AS partition FROM platform.transactions`.execute(db);
    expect(ledger.rows).toEqual([{ partition: "platform.transactions_p2023_12" }]);
    const rejects = await sql<{ stream: string; slice: string; uuid: string; code: string }>`
      SELECT stream, slice, raw->>'uuid' AS uuid, issues->0->>'code' AS code FROM etl.rejects`.execute(db);
    expect(rejects.rows).toEqual([
      { stream: "cdrs", slice: "migration 0023", uuid: "undated", code: "null_key" },
    ]);
    const view = await sql<{
      found: boolean;
    }>`SELECT to_regclass('analytics_staging.stg_platform__cdrs') IS NOT NULL AS found`.execute(db);
    expect(view.rows[0]!.found).toBe(false);
    const partitioned = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'platform' ORDER BY 1`.execute(db);
    expect(partitioned.rows.map((r) => r.name)).toEqual(["cdrs", "messages", "recordings", "transactions"]);
  });
});
