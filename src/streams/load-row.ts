import type { z } from "zod";
import type { LoadRow } from "../warehouse/connection/landing-table.js";
import { readColumns, type StreamColumn } from "./columns.js";

export type { LoadRow } from "../warehouse/connection/landing-table.js";

/** Field names a row schema declares (an object schema's `shape`), empty for any other schema. */
export function knownFields(schema: z.ZodType): ReadonlySet<string> {
  const shape = (schema as { shape?: unknown }).shape;
  return new Set(shape && typeof shape === "object" ? Object.keys(shape) : []);
}

const knownFieldsCache = new WeakMap<z.ZodType, ReadonlySet<string>>();

/** What turns a validated row into a LoadRow: the schema it passed (its fields are known) and the declared columns. */
export interface RowShape {
  readonly schema: z.ZodType;
  readonly columns: readonly StreamColumn<never>[];
}

/**
 * Turns a row that passed `shape.schema` into a LoadRow: the declared columns give the typed
 * values, and every field the schema does not declare goes to `extra` so nothing the platform sent
 * is lost.
 */
export function toLoadRow(
  shape: RowShape,
  parsed: unknown,
  implied: Readonly<Record<string, string>>,
): LoadRow {
  let known = knownFieldsCache.get(shape.schema);
  if (!known) {
    known = knownFields(shape.schema);
    knownFieldsCache.set(shape.schema, known);
  }
  let extra: Record<string, unknown> | null = null;
  const fields = parsed as Record<string, unknown>;
  // `for…in`, not Object.entries: no array per row (this runs on every row of every load).
  for (const field in fields) {
    if (known.has(field)) continue;
    extra ??= {};
    extra[field] = fields[field];
  }
  return { columns: readColumns(shape.columns, parsed as never, implied), extra };
}
