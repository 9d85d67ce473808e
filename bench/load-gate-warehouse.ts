/**
 * The load gate's warehouse: one embedded Postgres, a template database migrated once (with the
 * plain COPY's table shaped like `platform.cdrs`), and a fresh copy of it per round.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { silentLogger } from "../src/core/log.js";
import { connectWarehouse, type Warehouse } from "../src/warehouse/connection/connect-warehouse.js";
import { startEmbeddedWarehouse } from "../src/warehouse/connection/embedded-postgres.js";
import { migrateToLatest } from "../src/warehouse/connection/migrate.js";

const TEMPLATE = "gate_template";

/** The gate's server: fresh migrated databases on demand. */
export interface GateServer {
  /** A new database copied from the migrated template, and how to drop it. */
  freshDatabase(name: string): Promise<{ readonly warehouse: Warehouse; drop(): Promise<void> }>;
  stop(): Promise<void>;
}

/** `url` with its database replaced by `database`. */
function databaseUrl(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Index definitions of `table` with the table's own name taken out, so two tables' sets compare. */
async function indexShapes(warehouse: Warehouse, schema: string, table: string): Promise<string[]> {
  const result = await warehouse.pool.query<{ shape: string }>(
    `SELECT regexp_replace(indexdef, '^CREATE (UNIQUE )?INDEX \\S+ ON (ONLY )?\\S+', 'CREATE \\1INDEX ON') AS shape
     FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY 1`,
    [schema, table],
  );
  return result.rows.map((r) => r.shape);
}

/**
 * `bench.cdrs_copy`: the columns, defaults, primary key and indexes of `platform.cdrs`, partitioned
 * by month as it is, with the months of the gate's world made ahead. Fails when its indexes are
 * not the landing table's (a COPY into a table with fewer indexes would flatter the baseline).
 */
async function createCopyTable(warehouse: Warehouse, months: readonly string[]): Promise<void> {
  await warehouse.pool.query("CREATE SCHEMA bench");
  await warehouse.pool.query(
    "CREATE TABLE bench.cdrs_copy (LIKE platform.cdrs INCLUDING ALL) PARTITION BY RANGE (date)",
  );
  for (const month of months) {
    await warehouse.pool.query("SELECT etl.ensure_month_partition('bench.cdrs_copy', $1)", [month]);
    await warehouse.pool.query("SELECT etl.ensure_month_partition('platform.cdrs', $1)", [month]);
  }
  const [landing, copy] = [
    await indexShapes(warehouse, "platform", "cdrs"),
    await indexShapes(warehouse, "bench", "cdrs_copy"),
  ];
  if (JSON.stringify(landing) !== JSON.stringify(copy)) {
    throw new Error(
      `bench.cdrs_copy's indexes ${copy.join("; ")} are not platform.cdrs's ${landing.join("; ")}`,
    );
  }
}

/** Starts the gate's embedded Postgres in a temporary directory and migrates its template (months: `YYYY-MM-01` of the world). */
export async function startGateServer(months: readonly string[]): Promise<GateServer> {
  const dir = await mkdtemp(path.join(tmpdir(), "load-gate-"));
  // Run as root, the server runs as user postgres, which must be able to reach its data directory.
  await chmod(dir, 0o755);
  const embedded = await startEmbeddedWarehouse({ dir, log: silentLogger });
  const admin = new pg.Client({ connectionString: embedded.url });
  const stop = async () => {
    await admin.end();
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    const template = await connectWarehouse(databaseUrl(embedded.url, TEMPLATE), { max: 2 });
    try {
      await migrateToLatest(template.db);
      await createCopyTable(template, months);
    } finally {
      await template.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    freshDatabase: async (name) => {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
      const warehouse = await connectWarehouse(databaseUrl(embedded.url, name), { max: 12 });
      return {
        warehouse,
        drop: async () => {
          await warehouse.close();
          await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
        },
      };
    },
    stop,
  };
}
