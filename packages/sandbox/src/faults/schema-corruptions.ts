import { itemShape } from "@telecom-etl/platform/resource.js";
import type { z } from "zod";
import type { RowFault } from "./fault-profile.js";

type Json = Record<string, unknown>;

/** How each row fault rewrites a row of one list (in place; `salt` is the row's own hash). */
export type Corruptions = Readonly<Record<RowFault, (row: Json, salt: number) => void>>;

/** The zod type name of a field (`string`, `number`, `enum`, `nullable`, `optional`, ...). */
const typeOf = (field: z.ZodType): string => (field.def as { type: string }).type;

/** One of `fields` picked by the row's salt (every field a fault may hit gets hit somewhere). */
const pick = (fields: readonly string[], salt: number): string => fields[salt % fields.length]!;

/**
 * The row faults of a list derived from its item schema (a zod object): what a list added by
 * `npm run scaffold:stream` gets, so its corruptions are not written by hand. `wrongType` sends a
 * required string or number field as the other type, `missingField` drops a required field,
 * `unknownEnum` sends a word outside a closed set (or, in a row without one, an object where a
 * required field holds a scalar), `extraField` adds a field the schema does not know (kept in
 * `_extra`). The first three make the row invalid for the schema, the last keeps it valid.
 */
export function schemaCorruptions(item: z.ZodType): Corruptions {
  const shape = itemShape(item);
  if (shape === undefined) throw new Error("row faults derive from an object schema");
  const required = Object.keys(shape).filter(
    (name) => !["optional", "nullable"].includes(typeOf(shape[name]!)),
  );
  const scalar = required.filter((name) => ["string", "number"].includes(typeOf(shape[name]!)));
  const enums = required.filter((name) => typeOf(shape[name]!) === "enum");
  if (scalar.length === 0) throw new Error("row faults need a required string or number field");
  return {
    wrongType: (row, salt) => {
      const field = pick(scalar, salt);
      row[field] = typeof row[field] === "number" ? String(row[field]) : salt % 1000;
    },
    missingField: (row, salt) => {
      delete row[pick(required, salt)];
    },
    unknownEnum: (row, salt) => {
      if (enums.length > 0) row[pick(enums, salt)] = "unknown_value";
      else row[pick(scalar, salt)] = { value: row[pick(scalar, salt)] };
    },
    extraField: (row, salt) => {
      row.trace_id = `t-${salt.toString(36)}`;
    },
  };
}
