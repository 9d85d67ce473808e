import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import type { Database } from "../../src/warehouse/connection/database.js";
import { defaultMigrationsDir, migrateToLatest } from "../../src/warehouse/connection/migrate.js";

/**
 * Migrates `db` with every migration named before `version` (`"0023"`) and none after: the
 * warehouse an earlier release left, for a test of the migration `version` on populated tables.
 */
export async function migrateBefore(db: Kysely<Database>, version: string): Promise<void> {
  const before = await mkdtemp(path.join(tmpdir(), `migrations-before-${version}-`));
  try {
    for (const file of await readdir(defaultMigrationsDir())) {
      if (file < version) await cp(path.join(defaultMigrationsDir(), file), path.join(before, file));
    }
    await migrateToLatest(db, before);
  } finally {
    await rm(before, { recursive: true, force: true });
  }
}
