import type { ColumnType } from "kysely";
import type { PgType } from "../warehouse/connection/landing-table.js";
import type { DeclaredColumn, RowOf } from "./columns.js";
import type { DeclaredStreams } from "./registry.js";
import type { SCAFFOLDED_STREAMS } from "./scaffolded-streams.js";
import type { DeclaredTable } from "./stream-definition.js";

/**
 * Landing tables of schema `platform` as Kysely sees them, for readers (tests, status, exports):
 * `db.withTables<PlatformTables>()`. Mapped from the registry's streams (and their child tables):
 * each table's name, declared columns, write mode and key, so a new stream is typed with nothing
 * written here; loads go through `loadSlice`. Dates read as `YYYY-MM-DD` strings, numerics as
 * decimal strings, bigints as numbers (`PgValue`).
 */

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Columns every landing table has. */
export interface LandingMetadata {
  _account: string;
  _run_id: number;
  _extracted_at: Timestamp;
  /** Fields of the platform's row the schema does not know; null when there were none. */
  _extra: ColumnType<unknown, string, string> | null;
}

/** A declared table whose columns keep their names, types and nullability (what `RowOf` reads). */
type TypedTable = DeclaredTable<string, readonly DeclaredColumn<never, string, PgType, boolean>[]>;

/** The columns the warehouse manages in a table by its write mode, as `managedColumns` lists them. */
type ManagedColumnsOf<Table extends TypedTable> = Table["writeMode"] extends "history"
  ? { valid_from: Timestamp; valid_to: Timestamp | null }
  : Table["writeMode"] extends "replace_window"
    ? { _row_ordinal: number }
    : Table["writeMode"] extends "replace_all"
      ? Table["key"] extends null
        ? { _row_ordinal: number }
        : unknown
      : unknown;

/** A stream's landing table and its child tables'. */
type TablesOf<Stream> = Stream extends { readonly table: infer Table }
  ?
      | Table
      | (Stream extends { readonly children?: readonly (infer Child)[] }
          ? Child extends { readonly table: infer ChildTable }
            ? ChildTable
            : never
          : never)
  : never;

/** Every landing table the registry's streams write. */
type RegisteredTable = Extract<TablesOf<DeclaredStreams[keyof DeclaredStreams]>, TypedTable>;

/** The tables of streams derived from their catalogue entry (`listStreamOf`): columns known only at run time. */
type DerivedTables = {
  [Name in keyof typeof SCAFFOLDED_STREAMS as `platform.${Name}`]: LandingMetadata & Record<string, unknown>;
};

/** The landing tables by qualified name (a type alias, as `withTables` needs an index-compatible type). */
export type PlatformTables = {
  [Table in RegisteredTable as Table["name"]]: LandingMetadata &
    RowOf<Table["columns"]> &
    ManagedColumnsOf<Table>;
} & DerivedTables;
