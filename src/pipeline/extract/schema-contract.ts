/**
 * A stream's schema contract (`stream_options.<stream>.schema_contract`): what a slice does with
 * the top-level fields its schema does not know. Absent, nothing here runs (they stay in `_extra`,
 * reported once). `freeze` rejects a row carrying one; `discard` drops them (counted, reported);
 * `evolve` makes each scalar one a typed column (see src/warehouse/state/schema-changes.ts) and
 * rejects a value whose type the column does not take. Pure: decisions are made per field name,
 * once per slice; a row pays one null check (freeze, discard) or one look per unknown field (evolve).
 */
import type { SchemaContract } from "../../config/config.js";
import { isCredentialName } from "../../core/known-secrets.js";
import { knownFields, type LoadRow } from "../../streams/load-row.js";
import type { StreamDefinition } from "../../streams/stream-definition.js";
import {
  type LandingTable,
  METADATA_COLUMNS,
  managedColumns,
} from "../../warehouse/connection/landing-table.js";
import { COLUMN_RANGES } from "../../warehouse/load/column-range.js";
import {
  EVOLVED_COLUMN_TYPES,
  type EvolvedColumn,
  type EvolvedColumnType,
  type EvolvedJsonType,
} from "../../warehouse/state/schema-changes.js";
import type { RowIssue } from "./row-issue.js";
import { jsonTypeOf } from "./unknown-fields.js";

/** A field name that can be a column as it is: lower-case letters, digits and `_`, at most 63. */
const COLUMN_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The issue code of a row `freeze` refused (`etl.rejects.issues`). */
export const UNKNOWN_FIELD = "unknown_field";
/** The issue code of a value an evolved column does not take. */
export const TYPE_CONFLICT = "schema_contract_type";

/** The key in `etl.run_slices.quality` counting a slice's rows whose unknown fields `discard` dropped. */
export const FIELDS_DISCARDED = "unknown_fields_discarded";

/** The JSON type whose values a column of each evolved type takes. */
export const EVOLVED_JSON_TYPES: Readonly<Record<EvolvedColumnType, EvolvedJsonType>> = Object.fromEntries(
  Object.entries(EVOLVED_COLUMN_TYPES).map(([json, pg]) => [pg, json]),
) as Record<EvolvedColumnType, EvolvedJsonType>;

/**
 * Whether `field` of `stream` may become a column: a name PostgreSQL takes unquoted, not a column
 * the table has already (declared, metadata, managed), not a credential's name (those stay masked
 * in `_extra`) nor one of the stream's secret fields.
 */
export function evolvable(stream: StreamDefinition, field: string): boolean {
  if (!COLUMN_NAME.test(field) || isCredentialName(field) || stream.secretFields?.includes(field))
    return false;
  return !takenNames(stream.table).has(field);
}

function takenNames(table: LandingTable): ReadonlySet<string> {
  return new Set([
    ...table.columns.map((column) => column.name),
    ...METADATA_COLUMNS,
    ...managedColumns(table),
  ]);
}

/**
 * The columns a slice's raw rows ask for: each evolvable field the schema does not know and no
 * column holds yet, typed by its non-null scalar values (the most frequent JSON type; ties to the
 * first seen). A field with only nulls, objects or arrays so far waits (it stays in `_extra`).
 */
export function columnsToAdd(
  stream: StreamDefinition,
  rawRows: readonly unknown[],
  existing: ReadonlyMap<string, EvolvedColumnType>,
): EvolvedColumn[] {
  const known = knownFields(stream.schema);
  const counts = new Map<string, Map<EvolvedJsonType, number>>();
  for (const raw of rawRows) {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) continue;
    const fields = raw as Record<string, unknown>;
    for (const field in fields) {
      if (known.has(field) || existing.has(field)) continue;
      const type = jsonTypeOf(fields[field]);
      if (!(type in EVOLVED_COLUMN_TYPES)) continue;
      const types = counts.get(field) ?? new Map<EvolvedJsonType, number>();
      types.set(type as EvolvedJsonType, (types.get(type as EvolvedJsonType) ?? 0) + 1);
      counts.set(field, types);
    }
  }
  const columns: EvolvedColumn[] = [];
  for (const [field, types] of counts) {
    if (!evolvable(stream, field)) continue;
    const [type] = [...types.entries()].reduce((best, next) => (next[1] > best[1] ? next : best));
    columns.push({ field, columnType: EVOLVED_COLUMN_TYPES[type] });
  }
  return columns.sort((a, b) => a.field.localeCompare(b.field));
}

/**
 * The refusal a contract adds to a slice's parse (a row it turns into a reject, kept as sent),
 * or undefined when it refuses nothing: `freeze` refuses any unknown field, `evolve` a value of
 * an evolved field whose type its column does not take.
 */
export function contractRefusal(
  stream: StreamDefinition,
  contract: SchemaContract | undefined,
  evolved: ReadonlyMap<string, EvolvedColumnType>,
): ((row: LoadRow) => RowIssue | null) | undefined {
  if (contract === "freeze") {
    return (row) => {
      if (row.extra === null) return null;
      const field = Object.keys(row.extra)[0] ?? "";
      return {
        path: field,
        code: UNKNOWN_FIELD,
        message: `field "${field}" is not in the schema of stream ${stream.name}, whose schema_contract is freeze: map it in packages/platform/src/, or set stream_options.${stream.name}.schema_contract to evolve or discard`,
      };
    };
  }
  if (contract !== "evolve" || evolved.size === 0) return undefined;
  return (row) => {
    if (row.extra === null) return null;
    for (const field in row.extra) {
      const type = evolved.get(field);
      if (type === undefined) continue;
      const issue = typeConflict(stream, field, type, row.extra[field]);
      if (issue !== null) return issue;
    }
    return null;
  };
}

/** The reject of a value an evolved column of type `type` cannot take as it is; null when it can (null always can). */
function typeConflict(
  stream: StreamDefinition,
  field: string,
  type: EvolvedColumnType,
  value: unknown,
): RowIssue | null {
  const got = jsonTypeOf(value);
  if (got === "null") return null;
  const column = `${stream.table.name}.${field}`;
  if (got !== EVOLVED_JSON_TYPES[type]) {
    return {
      path: field,
      code: TYPE_CONFLICT,
      message: `${field}: expected a JSON ${EVOLVED_JSON_TYPES[type]} (column ${column} is ${type}, added by schema_contract evolve), got a ${got}: a changed type is rejected, never cast`,
    };
  }
  const range = COLUMN_RANGES[type];
  if (range === null || range.fits(value)) return null;
  return { path: field, code: "out_of_range", message: `${field} does not fit ${column} (${range.range})` };
}

/** What a contract did to a slice's valid rows: the rows to load, and how many had fields discarded. */
export interface ContractedRows {
  readonly rows: LoadRow[];
  /** Rows whose unknown fields `discard` dropped (0 under any other contract). */
  readonly discardedRows: number;
}

/**
 * The valid rows of a slice under its contract (after {@link contractRefusal}): `discard` drops
 * every row's unknown fields, `evolve` moves each evolved field's value from `_extra` to its
 * column; the same array, untouched, under any other. Only rows with unknown fields are rebuilt.
 */
export function contractRows(
  contract: SchemaContract | undefined,
  rows: LoadRow[],
  evolved: ReadonlyMap<string, EvolvedColumnType>,
): ContractedRows {
  if (contract === "discard") {
    let discardedRows = 0;
    const kept = rows.map((row) => {
      if (row.extra === null) return row;
      discardedRows++;
      return { columns: row.columns, extra: null };
    });
    return { rows: kept, discardedRows };
  }
  if (contract !== "evolve" || evolved.size === 0) return { rows, discardedRows: 0 };
  return {
    rows: rows.map((row) => (row.extra === null ? row : moveEvolved(row, evolved))),
    discardedRows: 0,
  };
}

/** A row with its evolved fields in their columns, the rest left in `_extra` (null when nothing is left). */
function moveEvolved(row: LoadRow, evolved: ReadonlyMap<string, EvolvedColumnType>): LoadRow {
  let columns: Record<string, unknown> | null = null;
  let extra: Record<string, unknown> | null = null;
  const fields = row.extra!;
  for (const field in fields) {
    if (evolved.has(field)) {
      columns ??= { ...row.columns };
      columns[field] = fields[field];
    } else {
      extra ??= {};
      extra[field] = fields[field];
    }
  }
  return columns === null ? row : { columns, extra };
}
