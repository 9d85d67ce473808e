/** Identifier quoting for the SQL this loader builds from stream definitions (which are code, not input). */

/** `name` as a quoted SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `left.c = right.c AND …` for each of `columns`: two aliases' rows agree on those columns. */
export function sameColumns(columns: readonly string[], left: string, right: string): string {
  return columns.map((c) => `${left}.${quoteIdent(c)} = ${right}.${quoteIdent(c)}`).join(" AND ");
}

/** `schema.table` with each part quoted. */
export function quoteTable(qualified: string): string {
  return qualified.split(".").map(quoteIdent).join(".");
}
