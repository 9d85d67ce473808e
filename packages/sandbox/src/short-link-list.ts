import { arraySource, type PageRow } from "./routes/page-body.js";
import { askedDays, defineSandboxList } from "./sandbox-list.js";

/**
 * Clicks on short links (`GET /v1/short-links/metrics`): the account's clicks by UTC day of
 * `created_at`, visible once made; window `from`/`to` required; filters `phone` and `utm_campaign`
 * (exact matches, empty values ignored).
 */
export const shortLinkList = defineSandboxList({
  route: "generic",
  window: "required",
  truth: true,
  select(ask) {
    const { runtime, account, nowMs, query } = ask;
    const phone = query?.get("phone") || null;
    const campaign = query?.get("utm_campaign") || null;
    const rows: PageRow[] = [];
    for (const day of askedDays(ask)) {
      for (const click of runtime.shortLinks.day(account, day)) {
        if (click.createdAtMs > nowMs) break;
        if (phone !== null && click.phone !== phone) continue;
        if (campaign !== null && click.utmCampaign !== campaign) continue;
        rows.push({ json: click.json, day, index: click.index });
      }
    }
    return arraySource(rows);
  },
});
