import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { MigrationChecksumError, UsageError } from "../../core/errors.js";
import { findProjectFolder } from "../../core/project-files.js";
import type { Database } from "./database.js";

/** The project's `sql/migrations` folder, found by climbing from this file (works from `src/` and `dist/src/`). */
export function defaultMigrationsDir(): string {
  return path.join(findProjectFolder("sql/migrations"), "sql", "migrations");
}

const FILE_NAME = /^(\d{4})_[a-z0-9]+(?:_[a-z0-9]+)+\.sql$/;

/**
 * The warehouse schema version this program migrates to: the number of its last migration file
 * (`0029` for `0029_create_message_opt_outs_table.sql`), as `--version` prints it.
 */
export function schemaVersion(dir = defaultMigrationsDir()): string {
  const numbers = readdirSync(dir).flatMap((name) => FILE_NAME.exec(name)?.[1] ?? []);
  return numbers.sort().at(-1) ?? "none";
}

/** One migration file: its name (without `.sql`), SQL text and SHA-256 of the text. */
export interface MigrationFile {
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

/** Reads `NNNN_verb_object.sql` files in name order; any other file name is an error. */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".sql")).sort();
  const files: MigrationFile[] = [];
  for (const fileName of names) {
    if (!FILE_NAME.test(fileName)) {
      throw new UsageError(`migration file ${fileName} is not named NNNN_verb_object.sql`);
    }
    const text = await readFile(path.join(dir, fileName), "utf8");
    const checksum = createHash("sha256").update(text).digest("hex");
    files.push({ name: fileName.replace(/\.sql$/, ""), sql: text, checksum });
  }
  return files;
}

/**
 * Feeds plain SQL files to Kysely's Migrator. Each file runs in the migration's transaction together
 * with the insert of its checksum, so a file is never recorded as applied without its checksum.
 */
class SqlFileMigrationProvider implements MigrationProvider {
  constructor(private readonly files: readonly MigrationFile[]) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const file of this.files) {
      migrations[file.name] = {
        up: async (db) => {
          await sql.raw(file.sql).execute(db);
          await sql`INSERT INTO etl.migration_checksums (name, checksum) VALUES (${file.name}, ${file.checksum})
            ON CONFLICT (name) DO NOTHING`.execute(db);
        },
      };
    }
    return migrations;
  }
}

/** Outcome of `migrate`: which files were applied now and which were already there. */
export interface MigrateResult {
  readonly applied: readonly string[];
  readonly alreadyApplied: readonly string[];
}

const MIGRATION_SCHEMA = "etl";
const MIGRATION_TABLE = "migrations";
const CHECKSUM_TABLE = "etl.migration_checksums";
const MIGRATE_LOCK_KEY = 7_420_001;

/** Names of the migrations `etl.migrations` records as applied (none before the first migration). */
export async function appliedMigrations(db: Kysely<Database>): Promise<Set<string>> {
  const table = `${MIGRATION_SCHEMA}.${MIGRATION_TABLE}`;
  const exists = await sql<{ found: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS found`.execute(db);
  if (exists.rows[0]?.found !== true) return new Set();
  const rows = await sql<{ name: string }>`SELECT name FROM ${sql.raw(table)}`.execute(db);
  return new Set(rows.rows.map((row) => row.name));
}

/**
 * Applies every pending migration in order under an advisory lock, recording each in
 * `etl.migrations`, and refuses to run when an applied file's content changed (checksum).
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  dir = defaultMigrationsDir(),
): Promise<MigrateResult> {
  const files = await readMigrationFiles(dir);
  return db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${MIGRATE_LOCK_KEY})`.execute(conn);
    try {
      await sql`CREATE SCHEMA IF NOT EXISTS etl`.execute(conn);
      await sql`CREATE TABLE IF NOT EXISTS etl.migration_checksums (
        name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`.execute(
        conn,
      );
      const recorded = await sql<{ name: string; checksum: string }>`
        SELECT name, checksum FROM ${sql.raw(CHECKSUM_TABLE)}`.execute(conn);
      const byName = new Map(files.map((file) => [file.name, file]));
      for (const row of recorded.rows) {
        const file = byName.get(row.name);
        if (!file) {
          throw new MigrationChecksumError(
            `migration ${row.name} is applied in the warehouse but its file is missing from sql/migrations; restore it`,
          );
        }
        if (file.checksum !== row.checksum) {
          throw new MigrationChecksumError(
            `migration ${row.name}.sql was changed after it was applied; restore the file and add a new migration instead`,
          );
        }
      }
      // Nothing pending (every command's start, nearly always): no Migrator. Kysely's migrator
      // introspects every table of the database, which fails when another session drops a schema
      // meanwhile (a transform publishing its marts drops its build schema).
      const done = await appliedMigrations(conn);
      if (files.every((file) => done.has(file.name))) {
        return { applied: [], alreadyApplied: files.map((file) => file.name) };
      }
      const migrator = new Migrator({
        db: conn,
        provider: new SqlFileMigrationProvider(files),
        migrationTableSchema: MIGRATION_SCHEMA,
        migrationTableName: MIGRATION_TABLE,
        migrationLockTableName: "migrations_lock",
      });
      const { error, results = [] } = await migrator.migrateToLatest();
      const applied = results.filter((r) => r.status === "Success").map((r) => r.migrationName);
      if (error) {
        const failed = results.find((r) => r.status === "Error")?.migrationName ?? "unknown";
        throw new UsageError(
          `migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const appliedSet = new Set(applied);
      return { applied, alreadyApplied: files.map((f) => f.name).filter((name) => !appliedSet.has(name)) };
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATE_LOCK_KEY})`.execute(conn);
    }
  });
}
