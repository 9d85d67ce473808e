/**
 * The control tables of schema `etl` with their columns, read from the Kysely types generated from
 * the migrated schema (the text of src/warehouse/connection/etl-tables.generated.ts): the
 * reference lists what the migrations made, not what someone remembered.
 */

/** The columns of interface `name` in `source`: name, TypeScript type, the column's comment. */
function columnsOf(source: string, name: string): { column: string; type: string; comment: string }[] {
  const start = source.indexOf(`export interface ${name} {`);
  if (start === -1) throw new Error(`etl-tables.generated.ts has no interface ${name}: run npm run db:types`);
  const body = source.slice(start, source.indexOf("\n}", start));
  const columns = [];
  for (const match of body.matchAll(/(?:\/\*\*([\s\S]*?)\*\/\s*)?\n\s*(\w+): ([^;]+);/g)) {
    const comment = (match[1] ?? "")
      .split("\n")
      .map((line) => line.replace(/^\s*\*\s?/, "").trim())
      .join(" ")
      .trim();
    columns.push({ column: match[2] ?? "", type: match[3] ?? "", comment });
  }
  return columns;
}

/** One section per `etl` table: a table of its columns. */
export function etlTablesReference(source: string): string {
  const db = source.slice(source.indexOf("export interface DB {"));
  const tables = [...db.matchAll(/"(etl\.\w+)": (\w+);/g)];
  return tables
    .map(([, table, type]) =>
      [
        `#### \`${table}\``,
        "",
        "| column | type | comment |",
        "|---|---|---|",
        ...columnsOf(source, type ?? "").map(
          (c) =>
            `| \`${c.column}\` | \`${c.type.replaceAll("|", "\\|")}\` | ${c.comment.replaceAll("|", "\\|")} |`,
        ),
      ].join("\n"),
    )
    .join("\n\n");
}
