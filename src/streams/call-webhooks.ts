import { CATALOGUE, type CallWebhook } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream } from "./stream-definition.js";

const c = columnsOf<CallWebhook>();

/** The columns of `platform.call_webhooks` (the warehouse adds `valid_from` / `valid_to`). */
export const CALL_WEBHOOK_COLUMNS = [
  c.required("event_type", "text", (row) => row.event_type),
  c.required("url", "text", (row) => row.url),
] as const;

/** A row of `platform.call_webhooks` as readers get it (typed columns only). */
export type CallWebhookRow = RowOf<typeof CALL_WEBHOOK_COLUMNS>;

/**
 * Account-level call webhooks: `GET /v1/calls/webhooks` (a bare array), every run, kept as history
 * per event type: a changed URL or a deleted webhook closes the open version at the read's time and
 * opens the new one, so what was configured when is visible over time.
 */
export const callWebhooksStream = defineStream({
  name: "call_webhooks",
  resource: CATALOGUE.call_webhooks,
  columns: CALL_WEBHOOK_COLUMNS,
  table: { name: "platform.call_webhooks", key: ["event_type"], writeMode: "history" },
});
