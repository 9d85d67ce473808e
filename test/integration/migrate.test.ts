import { cp, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { MigrationChecksumError } from "../../src/errors.js";
import { defaultMigrationsDir, migrateToLatest } from "../../src/warehouse/migrate.js";
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
});
