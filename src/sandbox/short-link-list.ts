import { arraySource, type PageRow } from "./routes/page-body.js";
import { defineSandboxList } from "./sandbox-list.js";
import { DAY_MS } from "./sandbox-options.js";

/**
 * Clicks on short links (`GET /v1/short-links/metrics`): the account's clicks by UTC day of
 * `created_at`, visible once made; window `from`/`to` required; filters `phone` and `utm_campaign`
 * (exact matches, empty values ignored).
 */
export const shortLinkList = defineSandboxList({
  route: "generic",
  window: "required",
  truth: true,
  select({ runtime, account, fromMs, untilMs, nowMs, query }) {
    const { world, shortLinks } = runtime;
    const phone = query?.get("phone") || null;
    const campaign = query?.get("utm_campaign") || null;
    const rows: PageRow[] = [];
    const firstDay = Math.max(fromMs ?? world.startMs, world.startMs) / DAY_MS;
    const endDay = Math.min(untilMs ?? world.endMs, world.endMs) / DAY_MS;
    for (let day = firstDay; day < endDay && day * DAY_MS <= nowMs; day++) {
      for (const click of shortLinks.day(account, day)) {
        if (click.createdAtMs > nowMs) break;
        if (phone !== null && click.phone !== phone) continue;
        if (campaign !== null && click.utmCampaign !== campaign) continue;
        rows.push({ json: click.json, day, index: click.index });
      }
    }
    return arraySource(rows);
  },
});
