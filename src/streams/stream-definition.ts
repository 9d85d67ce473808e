import type { z } from "zod";

/** How a stream's rows reach its landing table. */
export const WRITE_MODES = ["merge", "replace_window"] as const;
/** `merge`: upsert by key; `replace_window`: delete the window's rows and insert the new ones, in one transaction. */
export type WriteMode = (typeof WRITE_MODES)[number];

/** How a stream is cut into slices. */
export const SLICINGS = ["date_window", "full_refresh"] as const;
/** `date_window`: UTC date windows with state; `full_refresh`: all pages every run, one slice. */
export type Slicing = (typeof SLICINGS)[number];

/** A date window [start, end): `YYYY-MM-DD` strings, end exclusive. */
export interface DateWindow {
  readonly start: string;
  readonly end: string;
}

/** One slice of work: a date window, or the whole resource for a full refresh. */
export type Slice = { readonly kind: "window"; readonly window: DateWindow } | { readonly kind: "full" };

/** One paginated request a slice needs (CDRs need two: placed and received). */
export interface StreamRequest {
  readonly path: string;
  /** Query parameters other than page and per_page. */
  readonly query: Readonly<Record<string, string>>;
  /** Values the request implies for every row it returns (e.g. `{ direction: "placed" }`). */
  readonly implied: Readonly<Record<string, string>>;
}

/** A typed column of a landing table (besides `_account`, `_run_id`, `_extracted_at`, `_extra`). */
export interface ColumnSpec {
  readonly name: string;
  /** PostgreSQL type as written in the migration: text, numeric, integer, bigint, timestamptz, date, boolean, double precision, jsonb. */
  readonly pgType: string;
}

/**
 * A stream is data plus a few hooks: where to read, how to slice, how to validate, where and how
 * to write. Streams never touch the database or the network themselves.
 */
export interface StreamDefinition<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** Permission a restricted key needs, as the platform names it (e.g. `billing:read`). */
  readonly permission: string;
  readonly slicing: Slicing;
  /** Requests for one slice. */
  requests(slice: Slice): readonly StreamRequest[];
  /** Field of the list response holding the rows (`items`, `metrics`, `invoices`). */
  readonly itemsField: string;
  /**
   * True when a response body is a valid empty answer whatever its items field holds (invoices:
   * `is_empty: true`); such a page has no rows. Absent: an empty answer is an empty items array.
   */
  isEmptyAnswer?(body: Readonly<Record<string, unknown>>): boolean;
  /** Row schema from src/platform (loose about unknown fields, which land in `_extra`). */
  readonly schema: Schema;
  /** Landing table, schema-qualified (`platform.cdrs`). */
  readonly table: string;
  /** Typed columns of the landing table, in order. */
  readonly columns: readonly ColumnSpec[];
  /** Key columns (always starting with `_account`); for `replace_window` streams the window column instead. */
  readonly key: readonly string[];
  readonly writeMode: WriteMode;
  /**
   * The column whose UTC date places a row in a window. Required for `replace_window`; optional for
   * `merge`, where it lets the loader see cheaply that a window holds no rows yet (insert fast path).
   */
  readonly windowColumn?: string;
  /** Maps a validated row (plus the request's implied values) to the typed columns. */
  toRow(row: z.infer<Schema>, implied: Readonly<Record<string, string>>): Record<string, unknown>;
}
