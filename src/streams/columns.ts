/**
 * A stream's columns, declared once: name, PostgreSQL type, nullability and how to read the value
 * from a validated row (and the values its request implied). The loader's column list, the row
 * mapping (`toRow`), the readers' Kysely types and the migration check all come from this one list.
 */
import type { LandingColumn, PgType, PgValue } from "../warehouse/connection/landing-table.js";

/** Values a request implies for every row it returns (CDRs: `direction`). */
export type Implied = Readonly<Record<string, string>>;

/** A typed column of a stream's landing table and how a validated `Row` fills it. */
export interface StreamColumn<Row = never, Name extends string = string, Type extends PgType = PgType>
  extends LandingColumn {
  readonly name: Name;
  readonly pgType: Type;
  /** The column's value for a validated row (null for SQL NULL). */
  read(row: Row, implied: Implied): unknown;
}

/** A column declaration that keeps its name, type and nullability in the type, for {@link RowOf}. */
export interface DeclaredColumn<Row, Name extends string, Type extends PgType, Nullable extends boolean>
  extends StreamColumn<Row, Name, Type> {
  readonly nullable: Nullable;
}

/**
 * Column builders for rows of type `Row`: `required("uuid", "text", (r) => r.uuid)`,
 * `nullable("charge", "numeric", (r) => r.charge)`.
 */
export function columnsOf<Row>() {
  return {
    /** A NOT NULL column. */
    required<const Name extends string, const Type extends PgType>(
      name: Name,
      pgType: Type,
      read: (row: Row, implied: Implied) => unknown,
    ): DeclaredColumn<Row, Name, Type, false> {
      return { name, pgType, nullable: false, read };
    },
    /** A column that admits NULL (the platform's field is nullable or optional). */
    nullable<const Name extends string, const Type extends PgType>(
      name: Name,
      pgType: Type,
      read: (row: Row, implied: Implied) => unknown,
    ): DeclaredColumn<Row, Name, Type, true> {
      return { name, pgType, nullable: true, read };
    },
  };
}

/** The typed columns of a landing row as a reader gets them, from a stream's column declarations. */
export type RowOf<Columns extends readonly DeclaredColumn<never, string, PgType, boolean>[]> = {
  -readonly [C in Columns[number] as C["name"]]: C["nullable"] extends true
    ? PgValue[C["pgType"]] | null
    : PgValue[C["pgType"]];
};

/**
 * The typed column values of one validated row, read through the declarations. The object starts
 * as a copy of one with every column already in place (a spread of it is one allocation of the
 * right size), so filling it in moves no property storage: built key by key from `{}`, each row's
 * object grew its property array several times (about 180 of its 420 bytes were that garbage).
 */
export function readColumns<Row>(
  columns: readonly StreamColumn<Row>[],
  row: Row,
  implied: Implied,
): Record<string, unknown> {
  const values: Record<string, unknown> = { ...emptyRowOf(columns) };
  for (const column of columns) {
    const value = column.read(row, implied);
    values[column.name] = value === undefined ? null : value;
  }
  return values;
}

/** Each column list's row with every column null, in column order (made once per list). */
const emptyRows = new WeakMap<readonly StreamColumn<never>[], Readonly<Record<string, null>>>();

function emptyRowOf<Row>(columns: readonly StreamColumn<Row>[]): Readonly<Record<string, null>> {
  const key = columns as readonly StreamColumn<never>[];
  let empty = emptyRows.get(key);
  if (empty === undefined) {
    const row: Record<string, null> = {};
    for (const column of columns) row[column.name] = null;
    empty = row;
    emptyRows.set(key, empty);
  }
  return empty;
}
