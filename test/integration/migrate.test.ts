import { cp, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { MigrationChecksumError } from "../../src/core/errors.js";
import {
  defaultMigrationsDir,
  migrateToLatest,
  readMigrationFiles,
} from "../../src/warehouse/connection/migrate.js";
import { describe, expect, it } from "../helpers/fixtures.js";

describe("migrateToLatest", () => {
  it("applies every file once, and a second run is a no-op", async ({ createDatabase }) => {
    const database = await createDatabase({ migrate: false });
    const first = await migrateToLatest(database.warehouse.db);
    expect(first.applied).toContain("0001_create_etl_schema");
    const second = await migrateToLatest(database.warehouse.db);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(first.applied);
    const tables = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'etl' ORDER BY table_name`.execute(
      database.warehouse.db,
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        "runs",
        "run_slices",
        "stream_state",
        "rejects",
        "tracked_requests",
        "migrations",
      ]),
    );
  });

  it("a test database copied from the run's template has every file applied, with the files' checksums", async ({
    createDatabase,
  }) => {
    const database = await createDatabase();
    const files = await readMigrationFiles(defaultMigrationsDir());
    const recorded = await sql<{ name: string; checksum: string }>`
      SELECT name, checksum FROM etl.migration_checksums ORDER BY name`.execute(database.warehouse.db);
    expect(recorded.rows).toEqual(files.map(({ name, checksum }) => ({ name, checksum })));
    const again = await migrateToLatest(database.warehouse.db);
    expect(again).toEqual({ applied: [], alreadyApplied: files.map((file) => file.name) });
  });

  it("refuses to run when an applied migration file was edited", async ({ createDatabase }) => {
    const database = await createDatabase({ migrate: false });
    const dir = await mkdtemp(path.join(tmpdir(), "migrations-"));
    await cp(defaultMigrationsDir(), dir, { recursive: true });
    await migrateToLatest(database.warehouse.db, dir);
    await writeFile(path.join(dir, "0001_create_etl_schema.sql"), "-- edited\nSELECT 1;\n", { flag: "a" });
    const attempt = migrateToLatest(database.warehouse.db, dir);
    await expect(attempt).rejects.toBeInstanceOf(MigrationChecksumError);
    await expect(attempt).rejects.toThrow(/0001_create_etl_schema\.sql was changed after it was applied/);
  });

  it("serialises concurrent migrators under the advisory lock", async ({ createDatabase }) => {
    const database = await createDatabase({ migrate: false });
    const results = await Promise.all([
      migrateToLatest(database.warehouse.db),
      migrateToLatest(database.warehouse.db),
    ]);
    const appliedTwice = results.flatMap((r) => r.applied);
    expect(new Set(appliedTwice).size).toBe(appliedTwice.length);
  });

  it("0010 reshapes a populated sip_trunks table under a dbt view: old rows and the view go, the next run refills", async ({
    createDatabase,
  }) => {
    const database = await createDatabase({ migrate: false });
    const db = database.warehouse.db;
    // A warehouse at 0009, with trunks loaded in the old shape and dbt's staging view over them.
    const before = await mkdtemp(path.join(tmpdir(), "migrations-"));
    const files = (await readdir(defaultMigrationsDir())).filter((name) => name < "0010");
    for (const name of files) await cp(path.join(defaultMigrationsDir(), name), path.join(before, name));
    await migrateToLatest(db, before);
    await sql`INSERT INTO platform.sip_trunks (_account, id, name, label, callerid, created_at, allowed_ips,
        ip_restrict, channels_restrict, cost_limit, didinfo_enabled, rewrite_enabled, rewrite_prefix,
        rewrite_cond, call_recording_enabled, machine_detection_enabled, transcription_enabled,
        transcription_threshold, host, multiple_numbers, encrypted_media, _run_id, _extracted_at)
      VALUES ('acme', 1, 'sip1a', 'Main', '15550001', now(), '[]', false, false, false, true, false, '', '',
        false, false, false, 6, 'dynamic', false, false, 1, now())`.execute(db);
    await sql`CREATE SCHEMA analytics_staging`.execute(db);
    await sql`CREATE VIEW analytics_staging.stg_platform__sip_trunks AS
      SELECT _account AS account, name AS trunk_name, created_at, host FROM platform.sip_trunks`.execute(db);
    const result = await migrateToLatest(db);
    expect(result.applied).toContain("0010_reshape_sip_trunks_as_summaries");
    const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM platform.sip_trunks`.execute(db);
    expect(rows.rows[0]!.n).toBe(0);
    const views = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM information_schema.views WHERE table_schema = 'analytics_staging'`.execute(
      db,
    );
    expect(views.rows[0]!.n).toBe(0);
    const columns = await sql<{ name: string }>`
      SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = 'platform' AND table_name = 'sip_trunks'`.execute(db);
    const names = columns.rows.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining(["auth_method", "host_request", "status", "charge", "talk_time"]),
    );
    expect(names).not.toContain("created_at");
  });
});
