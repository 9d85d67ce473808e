import { CATALOGUE } from "../../platform/catalogue.js";
import { rawJson, type SandboxResponse } from "../http/http-kit.js";
import { rejectReversed, requiredWindow } from "../http/list-window.js";
import { readPaging } from "../http/paging.js";
import { DAY_MS } from "../sandbox-options.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import { arraySource, listShapeOf, type PageRow, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** Short-link metrics of an account visible at `nowMs` in [fromMs, toMs] (inclusive days), in serving order. */
export function selectShortLinkRows(
  context: Pick<RouteContext, "runtime" | "account">,
  fromMs: number,
  toMs: number,
  nowMs: number,
  phone: string | null,
  campaign: string | null,
): PageRow[] {
  const { world, shortLinks } = context.runtime;
  const rows: PageRow[] = [];
  const firstDay = Math.max(fromMs, world.startMs) / DAY_MS;
  const lastDay = Math.min(toMs, world.endMs - DAY_MS) / DAY_MS;
  for (let day = firstDay; day <= lastDay && day * DAY_MS <= nowMs; day++) {
    for (const click of shortLinks.day(context.account, day)) {
      if (click.createdAtMs > nowMs) break;
      if (phone !== null && click.phone !== phone) continue;
      if (campaign !== null && click.utmCampaign !== campaign) continue;
      rows.push({ json: click.json, day, index: click.index });
    }
  }
  return rows;
}

const METRICS = CATALOGUE.short_link_metrics;

/** `GET /v1/short-links/metrics`: the catalogue's window (from/to, inclusive UTC days), phone, utm_campaign, paging. */
function listMetrics(context: RouteContext): SandboxResponse {
  const { query } = context.request;
  const window = requiredWindow(query, METRICS.window);
  rejectReversed(window, METRICS.window);
  const paging = readPaging(query, context.runtime.options.maxPerPage);
  const rows = selectShortLinkRows(
    context,
    window.fromMs,
    window.untilMs - DAY_MS,
    context.runtime.clock.now(),
    query.get("phone") || null,
    query.get("utm_campaign") || null,
  );
  const body = servePage(context, listShapeOf(METRICS, "short_link_metrics"), arraySource(rows), paging);
  return rawJson(200, body);
}

/** Short-link routes. */
export const shortLinkRoutes: readonly PlatformHandler[] = catalogueHandlers(METRICS, listMetrics);
