import type { LoadRow } from "./load-row.js";
import type { StreamDefinition } from "./stream-definition.js";

/** Text identity of a value inside a key: numbers and numeric strings of equal text collide, as in SQL. */
function keyPart(value: unknown): string {
  if (value === null || value === undefined) return "\u0000null";
  if (value instanceof Date) return value.toISOString();
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * The identity of a row inside one slice of one account: its key columns (besides `_account`) for
 * merge streams, its whole content for replace_window streams, whose rows have no id.
 */
export function rowIdentity(stream: StreamDefinition): (row: LoadRow) => string {
  if (stream.writeMode === "replace_window") {
    const names = stream.columns.map((column) => column.name);
    return (row) => JSON.stringify([names.map((name) => keyPart(row.columns[name])), row.extra ?? null]);
  }
  const names = stream.key.filter((name) => name !== "_account");
  if (names.length === 1) {
    const only = names[0]!;
    return (row) => keyPart(row.columns[only]);
  }
  return (row) => names.map((name) => keyPart(row.columns[name])).join("\u001f");
}

/**
 * Collapses rows with the same identity (the same row served on two pages): the last one wins.
 * Returns the distinct rows and how many duplicates were dropped.
 */
export function collapseRows(
  stream: StreamDefinition,
  rows: readonly LoadRow[],
): { rows: readonly LoadRow[]; duplicates: number } {
  const identity = rowIdentity(stream);
  const byIdentity = new Map<string, LoadRow>();
  for (const row of rows) byIdentity.set(identity(row), row);
  return { rows: [...byIdentity.values()], duplicates: rows.length - byIdentity.size };
}
