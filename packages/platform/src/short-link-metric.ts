import { z } from "zod";

/** Short-link `created_at`: `2023-07-19 18:23:42.120Z` (a space, not `T`). */
export const shortLinkTimestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?Z$/, "expected 'YYYY-MM-DD HH:MM:SS.sssZ'");

/** One click on a short link. Rows have no id. */
export const shortLinkMetricSchema = z.looseObject({
  latitude: z.number(),
  longitude: z.number(),
  operating_system: z.string(),
  browser: z.string(),
  language: z.string(),
  phone: z.string(),
  utm_campaign: z.string(),
  created_at: shortLinkTimestamp,
  link_hash: z.string(),
  user_id: z.number().int(),
});
/** A short-link metric row. */
export type ShortLinkMetric = z.infer<typeof shortLinkMetricSchema>;
