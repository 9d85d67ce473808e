import { randomBytes } from "node:crypto";
import pg from "pg";
import { connectWarehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { migrateToLatest } from "../../src/warehouse/connection/migrate.js";

/**
 * The migrated database every integration test's database is copied from (`CREATE DATABASE …
 * TEMPLATE`), made once per test run by the global setup: the ~30 migrations run once, not once per
 * test file. It takes no connections once made (Postgres copies a template only while nobody is
 * connected to it), and the BI role is left to each copy, since its name derives from the copy's.
 */
export interface TemplateDatabase {
  readonly name: string;
  drop(): Promise<void>;
}

/** Runs one statement on the server of `adminUrl` in a connection of its own (CREATE/DROP DATABASE cannot share a transaction). */
export async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Creates and migrates a template database on the server of `adminUrl`, named per run
 * (`t_template_<pid>_<random>`) so runs sharing a server (TEST_DATABASE_URL) never share one.
 */
export async function createTemplateDatabase(adminUrl: string): Promise<TemplateDatabase> {
  const name = `t_template_${process.pid}_${randomBytes(3).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const warehouse = await connectWarehouse(url.toString());
  try {
    await migrateToLatest(warehouse.db);
  } finally {
    await warehouse.close();
  }
  // A test that connected to it by mistake would make every later copy fail; refuse connections instead.
  await adminQuery(adminUrl, `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  return { name, drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
