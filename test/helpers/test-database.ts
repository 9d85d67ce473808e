import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { silentLogger } from "../../src/core/log.js";
import { setUpBiReaderRole } from "../../src/warehouse/admin/bi-reader-role.js";
import { connectWarehouse, type Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { migrateToLatest } from "../../src/warehouse/connection/migrate.js";
import { adminQuery as adminQueryOn } from "./template-database.js";

/** A database of its own for one test file: URL, an open warehouse, and a way to drop it. */
export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  readonly warehouse: Warehouse;
  drop(): Promise<void>;
}

function adminQuery(text: string): Promise<void> {
  return adminQueryOn(inject("adminUrl"), text);
}

/**
 * Drops database `name`, then role `role` (roles are server-wide: one a test created outlives its
 * database unless dropped), once nothing of the role is left there.
 */
export async function dropDatabaseAndRole(name: string, role: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(`DROP ROLE IF EXISTS ${role}`);
}

/** URL of database `name` on the test server. */
export function testDatabaseUrl(name: string): string {
  const url = new URL(inject("adminUrl"));
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Creates a database and opens it: migrated by default, as a copy of the run's template (migrated
 * once by the global setup), or empty with `migrate: false` (for tests of the migrations).
 */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  const migrate = options.migrate !== false;
  await adminQuery(`CREATE DATABASE ${name}${migrate ? ` TEMPLATE ${inject("templateDatabase")}` : ""}`);
  const url = testDatabaseUrl(name);
  const warehouse = await connectWarehouse(url);
  if (migrate) {
    // A no-op on a current copy (a few catalog reads) that checks the copy's recorded checksums
    // against the files, as every command that opens the warehouse does.
    await migrateToLatest(warehouse.db);
    // What every command that migrates does next: the warehouse's own BI role, which dbt grants the marts to.
    await setUpBiReaderRole(warehouse.db, { log: silentLogger });
  }
  return {
    url,
    name,
    warehouse,
    drop: async () => {
      await warehouse.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
