import type { ColumnType } from "kysely";

/**
 * Landing tables of schema `platform` (sql/migrations/0002) as Kysely sees them, for readers
 * (tests, status, exports): `db.withTables<PlatformTables>()`. Loads go through `loadSlice`.
 * Dates read as `YYYY-MM-DD` strings, numerics as decimal strings, bigints as numbers.
 */

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json = ColumnType<unknown, string, string>;

/** Columns every landing table has. */
export interface LandingColumns {
  _account: string;
  _run_id: number;
  _extracted_at: Timestamp;
  /** Fields of the platform's row the schema does not know; null when there were none. */
  _extra: Json | null;
}

/** platform.cdrs, key (_account, direction, uuid). */
export interface CdrsTable extends LandingColumns {
  direction: "placed" | "received";
  uuid: string;
  date: Timestamp | null;
  from_number: string;
  to_number: string;
  disposition: string;
  duration: number;
  destination: string | null;
  per_minute: string | null;
  charge: string | null;
  sip_trunk: string | null;
  forward_fee: string | null;
  parent_uuid: string | null;
  answered_by: string | null;
}

/** platform.short_link_metrics, replaced by (_account, created_date) window; `_row_ordinal` numbers a day's rows. */
export interface ShortLinkMetricsTable extends LandingColumns {
  created_date: string;
  _row_ordinal: number;
  created_at: Timestamp;
  latitude: number;
  longitude: number;
  operating_system: string;
  browser: string;
  language: string;
  phone: string;
  utm_campaign: string;
  link_hash: string;
  user_id: number;
}

/** platform.invoices, key (_account, id). */
export interface InvoicesTable extends LandingColumns {
  id: number;
  from_date: string;
  to_date: string;
  amount: string;
}

/** The landing tables by qualified name (a type alias, as `withTables` needs an index-compatible type). */
export type PlatformTables = {
  "platform.cdrs": CdrsTable;
  "platform.short_link_metrics": ShortLinkMetricsTable;
  "platform.invoices": InvoicesTable;
};
