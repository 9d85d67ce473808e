import type { z } from "zod";
import type { StreamDefinition } from "./stream-definition.js";

/** A validated row ready to load: the typed columns and the fields the schema does not know. */
export interface LoadRow {
  readonly columns: Readonly<Record<string, unknown>>;
  /** Unknown fields of the platform's row (kept in `_extra`); null when there are none. */
  readonly extra: Readonly<Record<string, unknown>> | null;
}

/** Field names a row schema declares (an object schema's `shape`), empty for any other schema. */
export function knownFields(schema: z.ZodType): ReadonlySet<string> {
  const shape = (schema as { shape?: unknown }).shape;
  return new Set(shape && typeof shape === "object" ? Object.keys(shape) : []);
}

const knownFieldsCache = new WeakMap<z.ZodType, ReadonlySet<string>>();

/**
 * Turns a row that passed `stream.schema` into a LoadRow: `toRow` gives the typed columns, and
 * every field the schema does not declare goes to `extra` so nothing the platform sent is lost.
 */
export function toLoadRow<Schema extends z.ZodType>(
  stream: StreamDefinition<Schema>,
  parsed: z.infer<Schema>,
  implied: Readonly<Record<string, string>>,
): LoadRow {
  let known = knownFieldsCache.get(stream.schema);
  if (!known) {
    known = knownFields(stream.schema);
    knownFieldsCache.set(stream.schema, known);
  }
  let extra: Record<string, unknown> | null = null;
  for (const [field, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (known.has(field)) continue;
    extra ??= {};
    extra[field] = value;
  }
  return { columns: stream.toRow(parsed, implied), extra };
}
