import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { silentLogger } from "../../src/core/log.js";
import { biReaderRoleFor, setUpBiReaderRole } from "../../src/warehouse/admin/bi-reader-role.js";
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

/** How many test files' databases may be named by slot at once (more than any run's workers). */
const FILE_DATABASE_SLOTS = 16;

/** A name claimed for one test file's database; `release` gives it back after the file. */
export interface ClaimedDatabaseName {
  readonly name: string;
  release(): Promise<void>;
}

/**
 * Claims the name of a test file's own database (the `database` fixture): `t_s<slot>_<the run's
 * template's suffix>`, the lowest slot no running file holds, held by a session-level advisory lock
 * on the test server until `release`. Files run one after another in a slot, so the same names come
 * back from file to file: dbt's saved parse of the project is valid for one connection only (host,
 * port, database; dbt parses the whole project again, 8–11 s here, when it changes), and a name
 * kept lets the next file's dbt calls reuse it (see marts-build.ts). The lock, not VITEST_POOL_ID,
 * decides: vitest gave two files running at once the same pool id in a full run (decision 0113).
 * The run's suffix keeps two runs on one server (TEST_DATABASE_URL) apart. A random name when
 * every slot is taken.
 */
export async function claimFileDatabaseName(): Promise<ClaimedDatabaseName> {
  const run = /^t_template_(\w+)$/.exec(inject("templateDatabase"))?.[1] ?? randomBytes(3).toString("hex");
  const client = new pg.Client({
    connectionString: inject("adminUrl"),
    application_name: "telecom-etl test database slot",
  });
  // A lost session frees its slot; the file goes on, and at worst a later file shares the name.
  client.on("error", () => {});
  await client.connect();
  for (let slot = 1; slot <= FILE_DATABASE_SLOTS; slot++) {
    const { rows } = await client.query<{ held: boolean }>(
      "SELECT pg_try_advisory_lock(hashtext($1), $2) AS held",
      [`telecom-etl test run ${run}`, slot],
    );
    if (rows[0]!.held) return { name: `t_s${slot}_${run}`, release: () => client.end() };
  }
  await client.end();
  return { name: randomDatabaseName(), release: async () => {} };
}

/** Whether `name` is a test file's database named by slot (see claimFileDatabaseName). */
export function isSlotDatabaseName(name: string): boolean {
  return /^t_s\d+_\w+$/.test(name);
}

function randomDatabaseName(): string {
  return `t_${randomBytes(6).toString("hex")}`;
}

/**
 * Creates a database and opens it: migrated by default, as a copy of the run's template (migrated
 * once by the global setup), or empty with `migrate: false` (for tests of the migrations). `name`
 * (default random) is dropped first when a database of that name is left (see claimFileDatabaseName).
 */
export async function createTestDatabase(
  options: { migrate?: boolean; name?: string } = {},
): Promise<TestDatabase> {
  const name = options.name ?? randomDatabaseName();
  const migrate = options.migrate !== false;
  // As if new: an earlier file's database of this name, and the BI role it made, are dropped.
  if (options.name !== undefined) await dropDatabaseAndRole(name, biReaderRoleFor(name));
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
