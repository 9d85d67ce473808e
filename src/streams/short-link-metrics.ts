import { CATALOGUE, type ShortLinkMetric } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream } from "./stream-definition.js";

const c = columnsOf<ShortLinkMetric>();

/** The columns of `platform.short_link_metrics`; `created_date` is the UTC day of `created_at`. */
export const SHORT_LINK_METRIC_COLUMNS = [
  // The schema guarantees `YYYY-MM-DD HH:MM:SS(.s)Z`: UTC, so the date is its first ten characters.
  c.required("created_date", "date", (row) => row.created_at.slice(0, 10)),
  c.required("created_at", "timestamptz", (row) => row.created_at),
  c.required("latitude", "double precision", (row) => row.latitude),
  c.required("longitude", "double precision", (row) => row.longitude),
  c.required("operating_system", "text", (row) => row.operating_system),
  c.required("browser", "text", (row) => row.browser),
  c.required("language", "text", (row) => row.language),
  c.required("phone", "text", (row) => row.phone),
  c.required("utm_campaign", "text", (row) => row.utm_campaign),
  c.required("link_hash", "text", (row) => row.link_hash),
  c.required("user_id", "bigint", (row) => row.user_id),
] as const;

/** A row of `platform.short_link_metrics` as readers get it (typed columns only). */
export type ShortLinkMetricRow = RowOf<typeof SHORT_LINK_METRIC_COLUMNS>;

/**
 * Clicks on short links: `GET /v1/short-links/metrics` by window. Rows have no id, so a window is
 * loaded by replacing its rows (`created_date`, the UTC date of `created_at`) in one transaction.
 */
export const shortLinkMetricsStream = defineStream({
  name: "short_link_metrics",
  resource: CATALOGUE.short_link_metrics,
  columns: SHORT_LINK_METRIC_COLUMNS,
  table: {
    name: "platform.short_link_metrics",
    key: null,
    writeMode: "replace_window",
    windowColumn: "created_date",
  },
});
