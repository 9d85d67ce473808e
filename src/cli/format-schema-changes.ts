import type { SchemaChange } from "../warehouse/state/schema-changes.js";

/**
 * The lines of `telecom-etl schema` (and `runs show`) naming the columns a stream's `evolve` schema
 * contract added to its landing table (`etl.schema_changes`); none when there are none.
 */
export function formatSchemaChanges(changes: readonly SchemaChange[], heading?: string): string[] {
  if (changes.length === 0) return [];
  const lines = [
    heading ??
      `${changes.length} column(s) added by schema_contract evolve (etl.schema_changes; the values land there, not in _extra):`,
  ];
  for (const c of changes) {
    lines.push(
      `  ${c.stream}.${c.field}  ${c.columnType}  added by run ${c.firstRun ?? "?"} at ${c.addedAt.toISOString()}` +
        ` (account ${c.firstAccount}, window ${c.firstWindow})`,
    );
  }
  return lines;
}

/** `telecom-etl schema`'s note on the unknown fields of streams whose schema contract is not the default. */
export function contractNotes(contracts: Readonly<Record<string, string | undefined>>): string[] {
  const set = Object.entries(contracts).filter(([, contract]) => contract !== undefined);
  if (set.length === 0) return [];
  return [
    `schema contracts: ${set.map(([stream, contract]) => `${stream} ${contract}`).join(", ")} (freeze: rows with an unknown field are rejected; discard: unknown fields dropped; evolve: scalar fields become columns)`,
  ];
}
