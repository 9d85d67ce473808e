import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { rawJson, type SandboxResponse } from "../http/http-kit.js";
import { readPaging } from "../http/paging.js";
import { DAY_MS } from "../sandbox-options.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import { arraySource, listShapeOf, type PageRow, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** Invoices of the caller's account issued at `nowMs`, newest first. */
export function selectInvoiceRows(
  context: Pick<RouteContext, "runtime" | "account">,
  nowMs: number,
): PageRow[] {
  const { invoices } = context.runtime;
  return invoices.issued(context.account, nowMs).map((invoice) => ({
    json: invoices.serialize(context.account, invoice),
    day: Date.parse(`${invoice.fromDate}T00:00:00Z`) / DAY_MS,
    index: invoice.id,
  }));
}

const INVOICES = CATALOGUE.invoices;

/** `GET /v1/billing/invoices`: paging; `is_empty` is true when the page holds no invoice. */
function listInvoices(context: RouteContext): SandboxResponse {
  const paging = readPaging(context.request.query, context.runtime.options.maxPerPage);
  const rows = selectInvoiceRows(context, context.runtime.clock.now());
  return rawJson(200, servePage(context, listShapeOf(INVOICES, "invoices"), arraySource(rows), paging));
}

/** Billing routes. */
export const invoiceRoutes: readonly PlatformHandler[] = catalogueHandlers(INVOICES, listInvoices);
