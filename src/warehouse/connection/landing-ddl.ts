import {
  type LandingTable,
  managedColumns,
  monthPartitionColumn,
  primaryKeyOf,
  ROW_ORDINAL,
  VALID_FROM,
  VALID_TO,
} from "./landing-table.js";

/**
 * The DDL of a landing table, derived from its declaration (the columns a stream declares, the
 * metadata columns, the managed ones of its write mode, the primary key `primaryKeyOf` gives):
 * what `npm run scaffold:stream` writes into a new stream's migration, so a landing table is never
 * written by hand beside its columns. test/integration/warehouse-landing-tables.test.ts creates it
 * for every existing stream and compares it with the migrated table.
 */

/** The PostgreSQL type and nullability of each managed column (as the migrations declare them). */
const MANAGED: Readonly<Record<string, { readonly type: string; readonly notNull: boolean }>> = {
  [ROW_ORDINAL]: { type: "integer", notNull: true },
  [VALID_FROM]: { type: "timestamptz", notNull: true },
  [VALID_TO]: { type: "timestamptz", notNull: false },
};

/** One column line `name type [NOT NULL]`, names padded to `width` like the hand-written migrations. */
function columnLine(name: string, type: string, notNull: boolean, width: number): string {
  return `  ${name.padEnd(width)} ${notNull ? `${type.padEnd(11)} NOT NULL` : type}`.trimEnd();
}

/**
 * `CREATE TABLE` for `table` (schema-qualified name), then an index on `(_account, window column)`
 * for a merge table read by window. A primary-key column is NOT NULL whatever the declaration says
 * (a row without it is a reject); a table partitioned by month is `PARTITION BY RANGE` of its
 * window column (the loader creates each month's partition before loading it).
 */
export function landingTableDdl(table: LandingTable): string {
  const key = primaryKeyOf(table);
  const columns: [string, string, boolean][] = [
    ["_account", "text", true],
    ...table.columns.map((c): [string, string, boolean] => [
      c.name,
      c.pgType,
      !c.nullable || key.includes(c.name),
    ]),
    ...managedColumns(table).map((name): [string, string, boolean] => [
      name,
      MANAGED[name]!.type,
      MANAGED[name]!.notNull,
    ]),
    ["_run_id", "bigint", true],
    ["_extracted_at", "timestamptz", true],
    ["_extra", "jsonb", false],
  ];
  const width = Math.max(...columns.map(([name]) => name.length));
  const partition = monthPartitionColumn(table);
  const lines = [
    `CREATE TABLE ${table.name} (`,
    ...columns.map(([name, type, notNull]) => `${columnLine(name, type, notNull, width)},`),
    `  PRIMARY KEY (${key.join(", ")})`,
    partition === null ? ");" : `) PARTITION BY RANGE (${partition});`,
  ];
  if (table.writeMode === "merge" && table.windowColumn !== undefined) {
    const bare = table.name.split(".").pop()!;
    lines.push(
      `CREATE INDEX ${bare}_by_${table.windowColumn} ON ${table.name} (_account, ${table.windowColumn});`,
    );
  }
  return `${lines.join("\n")}\n`;
}
