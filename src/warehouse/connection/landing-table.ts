/**
 * What the warehouse knows of a landing table: its name, typed columns, key and how rows are
 * written. Streams describe their table this way (see `defineStream` in src/streams); the
 * warehouse never looks at a stream itself.
 */

/** PostgreSQL types a landing column is declared with, as written in the migrations. */
export const PG_TYPES = [
  "text",
  "integer",
  "bigint",
  "numeric",
  "double precision",
  "timestamptz",
  "date",
  "boolean",
  "jsonb",
] as const;
/** A landing column's PostgreSQL type. */
export type PgType = (typeof PG_TYPES)[number];

/** The TypeScript value a reader gets for each PostgreSQL type (pg's parsers as the warehouse sets them). */
export interface PgValue {
  text: string;
  integer: number;
  bigint: number;
  numeric: string;
  "double precision": number;
  timestamptz: Date;
  date: string;
  boolean: boolean;
  jsonb: unknown;
}

/** A typed column of a landing table (besides the metadata columns every landing table has). */
export interface LandingColumn {
  readonly name: string;
  readonly pgType: PgType;
  /** Whether the column admits NULL (the migration says `NOT NULL` otherwise). */
  readonly nullable: boolean;
}

/** How a stream's rows reach its landing table. */
export const WRITE_MODES = ["merge", "replace_window", "replace_all", "replace_snapshot", "history"] as const;
/**
 * How a read's rows are written, in one transaction each:
 * - `merge`: upsert by key (`_account` + `key`); rows not read stay.
 * - `replace_window`: rows have no id, so the window's rows are deleted and the new ones inserted,
 *   numbered by content (`_row_ordinal`).
 * - `replace_all`: the read is the account's whole set (trunks, numbers, appeals): upsert by key
 *   and delete the account's rows not read (rows without an id: delete all, insert numbered).
 * - `replace_snapshot`: like `replace_all`, but only within the snapshot day(s) read (the window
 *   column, part of the key), so older snapshots stay: a dated history of the whole set.
 * - `history`: each key keeps its versions (`valid_from`, `valid_to`): a changed row closes its open
 *   version and opens a new one, a row no longer read is closed, an unchanged one is left alone.
 */
export type WriteMode = (typeof WRITE_MODES)[number];

/** Columns every landing table has besides its typed ones. */
export const METADATA_COLUMNS = ["_account", "_run_id", "_extracted_at", "_extra"] as const;
/** The column numbering the rows of a window of a `replace_window` table (or of a keyless `replace_all` one). */
export const ROW_ORDINAL = "_row_ordinal";
/** The version columns of a `history` table. */
export const VALID_FROM = "valid_from";
export const VALID_TO = "valid_to";

/** Columns the warehouse manages in a table besides its typed ones and the metadata columns. */
export function managedColumns(table: LandingTable): readonly string[] {
  if (table.writeMode === "history") return [VALID_FROM, VALID_TO];
  if (table.writeMode === "replace_window" || (table.writeMode === "replace_all" && table.key === null))
    return [ROW_ORDINAL];
  return [];
}

/** A landing table as the warehouse writes it. */
export interface LandingTable {
  /** Schema-qualified name (`platform.cdrs`). */
  readonly name: string;
  /** Typed columns, in order. */
  readonly columns: readonly LandingColumn[];
  /** Columns identifying a row within its account (the primary key is `_account` plus these); null for rows without an id. */
  readonly key: readonly string[] | null;
  readonly writeMode: WriteMode;
  /**
   * The column whose UTC date places a row in a window. Required for `replace_window`; optional
   * for `merge`, where it lets the loader see cheaply that a window holds no rows yet (fast path).
   */
  readonly windowColumn?: string;
  /**
   * The table is partitioned by calendar month (UTC) of `windowColumn` (merge tables only): its
   * primary key then ends with the window column, and the loader keeps the key alone unique.
   */
  readonly partitionedByMonth?: boolean;
}

/** The window column of a table partitioned by month; null when the table is not partitioned. */
export function monthPartitionColumn(table: LandingTable): string | null {
  if (table.partitionedByMonth !== true) return null;
  if (table.writeMode !== "merge" || table.windowColumn === undefined)
    throw new Error(`${table.name} is partitioned by month but is not a merge table with a window column`);
  return table.windowColumn;
}

/** The primary key of a landing table as the migration declares it. */
export function primaryKeyOf(table: LandingTable): readonly string[] {
  if (table.writeMode === "replace_window") {
    if (!table.windowColumn)
      throw new Error(`${table.name} is replaced by window but names no window column`);
    return ["_account", table.windowColumn, ROW_ORDINAL];
  }
  if (table.writeMode === "replace_all" && table.key === null) return ["_account", ROW_ORDINAL];
  if (table.key === null) throw new Error(`${table.name} is written by key but has no key`);
  if (table.writeMode === "history") return ["_account", ...table.key, VALID_FROM];
  const partitionColumn = monthPartitionColumn(table);
  return ["_account", ...table.key, ...(partitionColumn === null ? [] : [partitionColumn])];
}

/** A validated row ready to load: its typed columns, and the fields its schema does not know. */
export interface LoadRow {
  readonly columns: Readonly<Record<string, unknown>>;
  /** Unknown fields of the platform's row (kept in `_extra`); null when there are none. */
  readonly extra: Readonly<Record<string, unknown>> | null;
}
