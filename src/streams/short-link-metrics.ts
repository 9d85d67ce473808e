import { type ShortLinkMetric, STREAM_PERMISSIONS, shortLinkMetricSchema } from "../platform/index.js";
import { lastDayOf, windowOf } from "./slice-label.js";
import type { Slice, StreamDefinition, StreamRequest } from "./stream-definition.js";

/**
 * Clicks on short links: `GET /v1/short-links/metrics` by window. Rows have no id, so a window is
 * loaded by replacing its rows (`created_date`, the UTC date of `created_at`) in one transaction.
 */
export const shortLinkMetricsStream: StreamDefinition<typeof shortLinkMetricSchema> = {
  name: "short_link_metrics",
  permission: STREAM_PERMISSIONS.short_link_metrics,
  slicing: "date_window",
  requests(slice: Slice): readonly StreamRequest[] {
    const window = windowOf(slice, "short_link_metrics");
    return [
      { path: "/v1/short-links/metrics", query: { from: window.start, to: lastDayOf(window) }, implied: {} },
    ];
  },
  itemsField: "metrics",
  schema: shortLinkMetricSchema,
  table: "platform.short_link_metrics",
  columns: [
    { name: "created_date", pgType: "date" },
    { name: "created_at", pgType: "timestamptz" },
    { name: "latitude", pgType: "double precision" },
    { name: "longitude", pgType: "double precision" },
    { name: "operating_system", pgType: "text" },
    { name: "browser", pgType: "text" },
    { name: "language", pgType: "text" },
    { name: "phone", pgType: "text" },
    { name: "utm_campaign", pgType: "text" },
    { name: "link_hash", pgType: "text" },
    { name: "user_id", pgType: "bigint" },
  ],
  key: ["_account", "created_date"],
  writeMode: "replace_window",
  windowColumn: "created_date",
  toRow(row: ShortLinkMetric) {
    return {
      // The schema guarantees `YYYY-MM-DD HH:MM:SS(.s)Z`: UTC, so the date is its first ten characters.
      created_date: row.created_at.slice(0, 10),
      created_at: row.created_at,
      latitude: row.latitude,
      longitude: row.longitude,
      operating_system: row.operating_system,
      browser: row.browser,
      language: row.language,
      phone: row.phone,
      utm_campaign: row.utm_campaign,
      link_hash: row.link_hash,
      user_id: row.user_id,
    };
  },
};
