/** Identifier quoting for the SQL this loader builds from stream definitions (which are code, not input). */

/** `name` as a quoted SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `schema.table` with each part quoted. */
export function quoteTable(qualified: string): string {
  return qualified.split(".").map(quoteIdent).join(".");
}
