/**
 * The foreign keys BI tools follow between the published marts (Metabase's and Superset's sync
 * read them as joinable columns). They are declared once, in the marts' yml (`config: meta:
 * foreign_keys:`), read from the manifest of the build, and created by each publication in the
 * published schema, both ends there: the build schema and the kept incremental marts never hold
 * one (an incremental merge into a kept table is not checked against a dimension). They are
 * `NOT VALID` wherever Postgres allows it: listed by `information_schema` and by the BI tools alike,
 * no scan of the fact inside the publication, and an orphan the platform legitimately leaves (a
 * deleted trunk's calls) does not refuse it. See docs/decisions/ (draft "foreign keys BI tools follow").
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { sql, type Transaction } from "kysely";
import { describeError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import type { Database } from "../warehouse/connection/database.js";

/** One declared foreign key between two marts (relation names, as published). */
export interface MartForeignKey {
  /** The referencing mart (a fact, or a report). */
  readonly from: string;
  readonly columns: readonly string[];
  /** The referenced mart (a dimension), on its primary key's columns. */
  readonly to: string;
  readonly toColumns: readonly string[];
}

/** The constraint's name: Postgres' own pattern (`<table>_<columns>_fkey`). */
export function foreignKeyName(key: MartForeignKey): string {
  return `${key.from}_${key.columns.join("_")}_fkey`;
}

interface ManifestNode {
  readonly resource_type?: string;
  readonly name?: string;
  readonly alias?: string;
  readonly config?: { readonly meta?: { readonly foreign_keys?: unknown } };
}

interface Declared {
  readonly columns?: unknown;
  readonly to?: unknown;
  readonly to_columns?: unknown;
}

const isNames = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string" && v !== "");

/**
 * The foreign keys the models of a manifest declare (`config.meta.foreign_keys`: `columns`, `to`
 * (a model), `to_columns` (default: the same names)), with each model's relation name. A
 * declaration naming no model, or columns of different counts, is left out (the keys test fails).
 */
export function declaredForeignKeys(nodes: Readonly<Record<string, ManifestNode>>): MartForeignKey[] {
  const models = Object.values(nodes).filter((n) => n.resource_type === "model" && n.name);
  const relationOf = new Map(models.map((n) => [n.name!, n.alias ?? n.name!]));
  const keys: MartForeignKey[] = [];
  for (const node of models) {
    const declared = node.config?.meta?.foreign_keys;
    if (!Array.isArray(declared)) continue;
    for (const entry of declared as Declared[]) {
      const to = typeof entry.to === "string" ? relationOf.get(entry.to) : undefined;
      const columns = entry.columns;
      const toColumns = entry.to_columns ?? columns;
      if (!to || !isNames(columns) || !isNames(toColumns) || columns.length !== toColumns.length) continue;
      keys.push({ from: relationOf.get(node.name!)!, columns, to, toColumns });
    }
  }
  return keys.sort((a, b) => foreignKeyName(a).localeCompare(foreignKeyName(b)));
}

/** {@link declaredForeignKeys} of `<targetPath>/manifest.json`; none when it cannot be read. */
export async function foreignKeysIn(targetPath: string): Promise<readonly MartForeignKey[]> {
  try {
    const manifest = JSON.parse(await readFile(path.join(targetPath, "manifest.json"), "utf8")) as {
      nodes?: Record<string, ManifestNode>;
    };
    return declaredForeignKeys(manifest.nodes ?? {});
  } catch {
    return [];
  }
}

/**
 * Drops every foreign key from or to table `schema.name`, before a publication replaces, keeps or
 * drops it: what `DROP … CASCADE` would do silently, done so that no constraint leaves the
 * published schema with a table; {@link addForeignKeys} creates them again afterwards.
 */
export async function dropForeignKeysOf(
  trx: Transaction<Database>,
  schema: string,
  name: string,
): Promise<void> {
  const table = sql`format('%I.%I', ${schema}::text, ${name}::text)::regclass`;
  const found = await sql<{ schema: string; table: string; name: string }>`
    SELECT n.nspname AS schema, r.relname AS table, c.conname AS name
    FROM pg_catalog.pg_constraint c
    JOIN pg_catalog.pg_class r ON r.oid = c.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace
    WHERE c.contype = 'f' AND c.conparentid = 0 AND (c.conrelid = ${table} OR c.confrelid = ${table})`.execute(
    trx,
  );
  for (const key of found.rows)
    await sql`ALTER TABLE ${sql.id(key.schema, key.table)} DROP CONSTRAINT ${sql.id(key.name)}`.execute(trx);
}

/** Errors of one key's creation that leave it out of the publication (logged) instead of failing it. */
const KEY_LEFT_OUT = new Set([
  "23503", // an orphan, where the key must be validated (a partitioned fact before Postgres 18)
  "42830", // the referenced columns have no unique constraint (a dimension published before its key)
  "42703", // a column the declaration names is missing
  "42804", // the columns' types differ
]);

/**
 * Creates, in `schema`, each declared foreign key whose two marts are tables there and which is not
 * there yet (the ones of marts this publication did not replace stay as they were). `NOT VALID`,
 * except from a partitioned fact before Postgres 18, which cannot have one: validated there, and
 * left out (a warning) when the fact has an orphan. Returns the names created.
 */
export async function addForeignKeys(
  trx: Transaction<Database>,
  schema: string,
  keys: readonly MartForeignKey[],
  log?: Logger,
): Promise<string[]> {
  const tables = await sql<{ name: string; kind: string; keys: string[] }>`
    SELECT r.relname AS name, r.relkind AS kind,
      array(SELECT c.conname::text FROM pg_catalog.pg_constraint c WHERE c.conrelid = r.oid AND c.contype = 'f') AS keys
    FROM pg_catalog.pg_class r JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace
    WHERE n.nspname = ${schema} AND r.relkind IN ('r', 'p') AND NOT r.relispartition`.execute(trx);
  const byName = new Map(tables.rows.map((t) => [t.name, t]));
  const version = await sql<{ v: number }>`SELECT current_setting('server_version_num')::int AS v`.execute(
    trx,
  );
  const partitionedNotValid = version.rows[0]!.v >= 180_000;
  const added: string[] = [];
  for (const key of keys) {
    const from = byName.get(key.from);
    const name = foreignKeyName(key);
    if (!from || !byName.has(key.to) || from.keys.includes(name)) continue;
    const notValid = from.kind !== "p" || partitionedNotValid;
    await sql`SAVEPOINT mart_foreign_key`.execute(trx);
    try {
      await sql`ALTER TABLE ${sql.id(schema, key.from)} ADD CONSTRAINT ${sql.id(name)}
        FOREIGN KEY (${sql.join(key.columns.map((c) => sql.id(c)))})
        REFERENCES ${sql.id(schema, key.to)} (${sql.join(key.toColumns.map((c) => sql.id(c)))})
        ${sql.raw(notValid ? "NOT VALID" : "")}`.execute(trx);
      await sql`RELEASE SAVEPOINT mart_foreign_key`.execute(trx);
      added.push(name);
    } catch (error) {
      if (!KEY_LEFT_OUT.has((error as { code?: string }).code ?? "")) throw error;
      await sql`ROLLBACK TO SAVEPOINT mart_foreign_key`.execute(trx);
      log?.warn(
        { foreignKey: name, error: describeError(error) },
        `foreign key ${name} left out of this publication (BI tools will not offer the join ${key.from} → ${key.to} until the next one that can create it)`,
      );
    }
  }
  return added;
}
