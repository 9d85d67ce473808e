/**
 * The warehouse schema a process was built for, and the refusal to work on another one: a worker
 * of another release would load with other landing tables, merges and states than the
 * coordinator that planned its units.
 */
import { UsageError } from "../core/errors.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import {
  appliedMigrations,
  defaultMigrationsDir,
  readMigrationFiles,
} from "../warehouse/connection/migrate.js";

/** The newest migration this build ships (its file name without `.sql`), e.g. `0022_share_key_rate_buckets`. */
export async function shippedSchemaVersion(dir = defaultMigrationsDir()): Promise<string> {
  const files = await readMigrationFiles(dir);
  return files.at(-1)?.name ?? "none";
}

/** The newest migration the warehouse has applied (`none` before the first). */
export async function warehouseSchemaVersion(warehouse: Warehouse): Promise<string> {
  return [...(await appliedMigrations(warehouse.db))].sort().at(-1) ?? "none";
}

/**
 * Resolves to the schema version both this build and the warehouse are at; throws a UsageError
 * (exit 2) saying which side to upgrade when they differ.
 */
export async function requireSameSchema(warehouse: Warehouse, dir?: string): Promise<string> {
  const [mine, theirs] = await Promise.all([shippedSchemaVersion(dir), warehouseSchemaVersion(warehouse)]);
  if (mine === theirs) return mine;
  if (theirs === "none" || theirs < mine) {
    throw new UsageError(
      `the warehouse is at schema ${theirs}, this worker needs ${mine}: run \`telecom-etl migrate\` (or a nightly of this version) first`,
    );
  }
  throw new UsageError(
    `the warehouse is at schema ${theirs}, newer than this worker's ${mine}: deploy the coordinator's release to this worker`,
  );
}
