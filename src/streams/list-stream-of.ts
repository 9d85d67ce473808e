import { itemShape, type PlatformResource } from "@telecom-etl/platform/resource.js";
import type { z } from "zod";
import type { PgType } from "../warehouse/connection/landing-table.js";
import type { StreamColumn } from "./columns.js";
import { defineStream, type StreamDefinition } from "./stream-definition.js";

/**
 * The stream of a date-windowed list whose landing columns are its item's fields, derived from the
 * catalogue entry alone: what a list added by `npm run scaffold:stream` is when no
 * `src/streams/<name>.ts` declares it otherwise (renamed columns, a key of its own, requests of its
 * own). The shape is then written once, in the item schema.
 */

/** A zod field's definition, as far as a column needs it. */
interface FieldDef {
  readonly type: string;
  readonly format?: string;
  readonly innerType?: z.ZodType;
}

const defOf = (field: z.ZodType): FieldDef => field.def as unknown as FieldDef;

/** The field's PostgreSQL type and nullability (nullable or optional fields admit NULL). */
function columnTypeOf(field: z.ZodType): { pgType: PgType; nullable: boolean } {
  const def = defOf(field);
  if ((def.type === "nullable" || def.type === "optional") && def.innerType !== undefined)
    return { pgType: columnTypeOf(def.innerType).pgType, nullable: true };
  const integer = (field as { isInt?: boolean }).isInt === true;
  const types: Readonly<Record<string, PgType>> = {
    string: def.format === "datetime" ? "timestamptz" : def.format === "date" ? "date" : "text",
    number: integer ? "bigint" : "double precision",
    boolean: "boolean",
    enum: "text",
    literal: "text",
  };
  return { pgType: types[def.type] ?? "jsonb", nullable: false };
}

/** The one required date-time field of the item: the one its window filters on. */
function windowFieldOf(name: string, shape: Readonly<Record<string, z.ZodType>>): string {
  const instants = Object.keys(shape).filter((field) => {
    const type = columnTypeOf(shape[field]!);
    return type.pgType === "timestamptz" && !type.nullable;
  });
  if (instants.length !== 1)
    throw new Error(
      `${name}: a derived list stream needs exactly one required date-time field (${instants.join(", ")})`,
    );
  return instants[0]!;
}

/**
 * Stream `name` (landing table `platform.<name>`) of a `windowed_list` resource: one column per
 * item field, same name; read per UTC day of its one required date-time field. An item with a
 * required `id` is merged by it; one without is keyless, its window's rows replaced, and lands the
 * field's UTC day as `<field minus _at>_date` (`created_at` → `created_date`), the window column.
 */
export function listStreamOf(name: string, resource: PlatformResource): StreamDefinition {
  const shape = itemShape(resource.item);
  if (resource.kind !== "windowed_list" || shape === undefined)
    throw new Error(`${name}: a derived list stream needs a windowed list of objects`);
  const at = windowFieldOf(name, shape);
  const keyed = shape.id !== undefined && !columnTypeOf(shape.id).nullable;
  const day = `${at.replace(/_at$/, "")}_date`;
  type Row = Readonly<Record<string, unknown>>;
  const fields: StreamColumn<Row>[] = Object.keys(shape).map((field) => ({
    name: field,
    ...columnTypeOf(shape[field]!),
    read: (row: Row) => row[field],
  }));
  const dayColumn: StreamColumn<Row> = {
    name: day,
    pgType: "date",
    nullable: false,
    read: (row: Row) => new Date(String(row[at])).toISOString().slice(0, 10),
  };
  return defineStream({
    name,
    resource,
    columns: keyed ? fields : [dayColumn, ...fields],
    table: {
      name: `platform.${name}`,
      key: keyed ? ["id"] : null,
      writeMode: keyed ? "merge" : "replace_window",
      windowColumn: keyed ? at : day,
    },
  }) as StreamDefinition;
}
