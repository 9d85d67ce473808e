import { sql } from "kysely";
import { STREAMS } from "../../src/streams/registry.js";
import { landingTableDdl } from "../../src/warehouse/connection/landing-ddl.js";
import {
  METADATA_COLUMNS,
  managedColumns,
  primaryKeyOf,
} from "../../src/warehouse/connection/landing-table.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * A stream declares its columns once; the migrations declare its table. This compares the two for
 * every stream of the registry against `information_schema` of the migrated warehouse, so neither
 * can drift from the other: same columns (and nothing else but the metadata columns), same types,
 * same nullability, same primary key.
 */
const INFORMATION_SCHEMA_TYPE: Readonly<Record<string, string>> = {
  timestamptz: "timestamp with time zone",
};

describe("landing tables", () => {
  it("every stream's declared columns, types, nullability and key equal its migrated table", async ({
    database,
  }) => {
    const declared = Object.values(STREAMS).flatMap((stream) => [
      { columns: stream.columns, table: stream.table },
      ...(stream.children ?? []).map((child) => ({ columns: child.columns, table: child.table })),
    ]);
    expect(declared.length).toBeGreaterThan(Object.keys(STREAMS).length);
    for (const stream of declared) {
      const { table } = stream;
      const [schema, name] = table.name.split(".") as [string, string];
      const columns = await sql<{ name: string; type: string; nullable: string }>`
        SELECT column_name AS name, data_type AS type, is_nullable AS nullable
        FROM information_schema.columns
        WHERE table_schema = ${schema} AND table_name = ${name}
        ORDER BY ordinal_position`.execute(database.warehouse.db);
      const actual = new Map(columns.rows.map((c) => [c.name, c]));
      expect(actual.size, `${table.name} exists`).toBeGreaterThan(0);
      const metadata = [...METADATA_COLUMNS, ...managedColumns(table)];
      expect([...actual.keys()].sort(), `${table.name}: columns`).toEqual(
        [...stream.columns.map((c) => c.name), ...metadata].sort(),
      );
      // A primary-key column is NOT NULL whatever the API allows (a row without it is a reject).
      const keyColumns = new Set(primaryKeyOf(table));
      for (const column of stream.columns) {
        const found = actual.get(column.name)!;
        expect([found.type, found.nullable], `${table.name}.${column.name}: type and nullability`).toEqual([
          INFORMATION_SCHEMA_TYPE[column.pgType] ?? column.pgType,
          column.nullable && !keyColumns.has(column.name) ? "YES" : "NO",
        ]);
      }
      const key = await sql<{ name: string }>`
        SELECT k.column_name AS name
        FROM information_schema.table_constraints t
        JOIN information_schema.key_column_usage k
          ON k.constraint_name = t.constraint_name AND k.table_schema = t.table_schema AND k.table_name = t.table_name
        WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = ${schema} AND t.table_name = ${name}
        ORDER BY k.ordinal_position`.execute(database.warehouse.db);
      expect(
        key.rows.map((k) => k.name),
        `${table.name}: primary key`,
      ).toEqual(primaryKeyOf(table));
    }
  });

  it("the DDL the scaffold derives from each declaration creates the migrated table (columns, key, partitioning)", async ({
    database,
  }) => {
    const { db } = database.warehouse;
    const tables = Object.values(STREAMS).flatMap((stream) => [
      stream.table,
      ...(stream.children ?? []).map((child) => child.table),
    ]);
    const shape = async (schema: string, name: string) => ({
      columns: (
        await sql<{ name: string; type: string; nullable: string }>`
          SELECT column_name AS name, data_type AS type, is_nullable AS nullable
          FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = ${name}
          ORDER BY column_name`.execute(db)
      ).rows,
      key: (
        await sql<{ key: string; kind: string }>`
          SELECT pg_get_constraintdef(k.oid) AS key, c.relkind::text AS kind
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'p'
          WHERE n.nspname = ${schema} AND c.relname = ${name}`.execute(db)
      ).rows,
    });
    await sql`CREATE SCHEMA scaffold_check`.execute(db);
    for (const table of tables) {
      const name = table.name.split(".")[1]!;
      // The derived DDL, run against a scratch schema (its index names are schema-local too).
      await sql.raw(landingTableDdl(table).replaceAll("platform.", "scaffold_check.")).execute(db);
      const migrated = await shape("platform", name);
      expect([migrated.columns.length > 0, migrated.key.length], table.name).toEqual([true, 1]);
      expect(await shape("scaffold_check", name), table.name).toEqual(migrated);
    }
  });
});
