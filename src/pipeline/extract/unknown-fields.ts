/**
 * Fields the platform sends that a stream's schema does not know: they land in `_extra` (never
 * dropped), and each is reported once, by the run that first sees it (see
 * src/warehouse/state/unknown-fields.ts). Pure: from a slice's parsed rows to the fields and their types.
 */
import type { LoadRow } from "../../streams/load-row.js";
import type { FieldSighting, JsonType } from "../../warehouse/state/unknown-fields.js";

export { type FieldSighting, JSON_TYPES, type JsonType } from "../../warehouse/state/unknown-fields.js";

/** The JSON type of a parsed value (an exact number kept as text by the parser is still a string here). */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "object";
  }
}

/** The fields of the rows' `_extra`, with their example type and row count, by name. */
export function unknownFieldsOf(rows: readonly LoadRow[]): FieldSighting[] {
  const seen = new Map<string, { exampleType: JsonType; rows: number }>();
  for (const row of rows) {
    if (row.extra === null) continue;
    for (const [field, value] of Object.entries(row.extra)) {
      const type = jsonTypeOf(value);
      const entry = seen.get(field);
      if (entry === undefined) seen.set(field, { exampleType: type, rows: 1 });
      else {
        entry.rows++;
        if (entry.exampleType === "null") entry.exampleType = type;
      }
    }
  }
  return [...seen.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([field, { exampleType, rows }]) => ({ field, exampleType, rows }));
}

/** A field a run saw for the first time (no run before it recorded it). */
export interface NewField extends FieldSighting {
  /** The stream (or child table, e.g. `transcription_turns`) whose rows carried it. */
  readonly stream: string;
  readonly account: string;
  /** The window (slice label) it was first seen in. */
  readonly window: string;
  /**
   * What the stream's schema contract did with it: dropped (`discard`), or made a column of the
   * landing table (`evolve`: `platform.cdrs.x`, its type); absent, kept in `_extra`.
   */
  readonly fate?: "discarded" | { readonly column: string; readonly columnType: string };
}

/** What happened to a new field, as its line says it. */
export function fateText(field: Pick<NewField, "fate">): string {
  if (field.fate === undefined)
    return "kept in _extra; map it in packages/platform/src/ if it should be a column";
  if (field.fate === "discarded")
    return "discarded (schema_contract discard: dropped from every row, not stored)";
  return `added as column ${field.fate.column} (${field.fate.columnType}) by schema_contract evolve`;
}

/** The one line that reports a new field (the run's warning, its summary, `runs show`). */
export function describeNewField(field: NewField): string {
  return (
    `account ${field.account}, stream ${field.stream}, window ${field.window}: the platform sends a new field ` +
    `"${field.field}" (${field.exampleType}, in ${field.rows.toLocaleString("en-US")} row(s)) that the loader's schema does not know: ` +
    `${fateText(field)} (telecom-etl schema lists every such field)`
  );
}
