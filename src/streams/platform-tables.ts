import type { ColumnType } from "kysely";
import type { CdrRow } from "./cdrs.js";
import type { InvoiceRow } from "./invoices.js";
import type { ShortLinkMetricRow } from "./short-link-metrics.js";

/**
 * Landing tables of schema `platform` as Kysely sees them, for readers (tests, status, exports):
 * `db.withTables<PlatformTables>()`. Derived from each stream's column declarations (nothing is
 * written twice); loads go through `loadSlice`. Dates read as `YYYY-MM-DD` strings, numerics as
 * decimal strings, bigints as numbers.
 */

/** Columns every landing table has. */
export interface LandingMetadata {
  _account: string;
  _run_id: number;
  _extracted_at: ColumnType<Date, Date | string, Date | string>;
  /** Fields of the platform's row the schema does not know; null when there were none. */
  _extra: ColumnType<unknown, string, string> | null;
}

/** The landing tables by qualified name (a type alias, as `withTables` needs an index-compatible type). */
export type PlatformTables = {
  "platform.cdrs": LandingMetadata & CdrRow;
  "platform.short_link_metrics": LandingMetadata & ShortLinkMetricRow & { _row_ordinal: number };
  "platform.invoices": LandingMetadata & InvoiceRow;
};
