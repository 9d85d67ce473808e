import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import { errorBodySchema } from "@telecom-etl/platform/common.js";
import { invoiceSchema } from "@telecom-etl/platform/invoice.js";
import { shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import type { RunningSandbox, SandboxOptions } from "@telecom-etl/sandbox";
import { answered, published } from "../helpers/catalogue-schemas.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/** One world, served by sandboxes that differ only in serving options. */
const WORLD: SandboxOptions = { seed: 13, days: 70, callsPerDay: 40, now: "2026-11-02T00:00:00Z" };
const CDR_WINDOW = "/v1/cdr?from=2026-08-04&to=2026-08-07&type=placed";
const LINK_WINDOW = "/v1/short-links/metrics?from=2026-08-01&to=2026-08-20";

async function get(sandbox: RunningSandbox, path: string): Promise<{ status: number; text: string }> {
  const key = sandbox.world.accounts[0]!.apiKey;
  const res = await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, text: await res.text() };
}

async function body(sandbox: RunningSandbox, path: string): Promise<unknown> {
  const answer = await get(sandbox, path);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.text);
}

/** Every page of a list, as the rows of each page (raw JSON values) and the last pagination seen. */
async function pages(
  sandbox: RunningSandbox,
  path: string,
  field: "items" | "metrics" | "invoices" | "dids",
  perPage: number,
): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for (let page = 1; ; page++) {
    const parsed = (await body(sandbox, `${path}&per_page=${perPage}&page=${page}`)) as Record<
      string,
      unknown
    > & { pagination: { total_pages: number } };
    out.push(parsed[field] as unknown[]);
    if (page >= parsed.pagination.total_pages) return out;
  }
}

/** The file's sandbox (`capped` in the tests): the world with at most 40 rows per page. */
it.override({ sandboxOptions: { ...WORLD, maxPerPage: 40 } });

describe("sandbox pagination", () => {
  it("defaults per_page to 25 on every list route, with the exact pagination object", async ({
    sandbox: capped,
  }) => {
    const lists = [
      { path: `${CDR_WINDOW}`, field: "items" },
      { path: `${LINK_WINDOW}`, field: "metrics" },
      { path: "/v1/buy/countries/1/cities/101/dids?text_enabled_only=false", field: "dids" },
    ] as const;
    for (const { path, field } of lists) {
      const parsed = (await body(capped, path)) as Record<string, unknown[]> & {
        pagination: Record<string, number>;
      };
      const total = parsed.pagination.total!;
      expect(total).toBeGreaterThan(25);
      expect(parsed.pagination).toEqual({
        current_page: 1,
        per_page: 25,
        total,
        total_pages: Math.ceil(total / 25),
      });
      expect(parsed[field]).toHaveLength(25);
    }
    const invoices = published(CATALOGUE.invoices).parse(await body(capped, "/v1/billing/invoices"));
    expect(invoices.pagination).toEqual({ current_page: 1, per_page: 25, total: 3, total_pages: 1 });
  });

  it("caps per_page at maxPerPage and says so in the pagination object", async ({ sandbox: capped }) => {
    const parsed = answered(CATALOGUE.cdrs).parse(await body(capped, `${CDR_WINDOW}&per_page=500`));
    expect(parsed.items).toHaveLength(40);
    expect(parsed.pagination.per_page).toBe(40);
    expect(parsed.pagination.total_pages).toBe(Math.ceil(parsed.pagination.total / 40));
    const links = answered(CATALOGUE.short_link_metrics).parse(
      await body(capped, `${LINK_WINDOW}&per_page=41`),
    );
    expect(links.pagination.per_page).toBe(40);
    const dids = published(CATALOGUE.available_numbers).parse(
      await body(capped, "/v1/buy/countries/1/cities/101/dids?per_page=1000"),
    );
    expect(dids.pagination.per_page).toBe(40);
  });

  it("serves the last partial page, then empty pages past the end (is_empty for invoices)", async ({
    sandbox: capped,
  }) => {
    const first = answered(CATALOGUE.cdrs).parse(await body(capped, `${CDR_WINDOW}&per_page=40`));
    const { total, total_pages: last } = first.pagination;
    const lastPage = answered(CATALOGUE.cdrs).parse(
      await body(capped, `${CDR_WINDOW}&per_page=40&page=${last}`),
    );
    expect(lastPage.items).toHaveLength(total - (last - 1) * 40);
    const past = answered(CATALOGUE.cdrs).parse(
      await body(capped, `${CDR_WINDOW}&per_page=40&page=${last + 1}`),
    );
    expect(past).toEqual({
      items: [],
      pagination: { current_page: last + 1, per_page: 40, total, total_pages: last },
    });
    const invoicePast = published(CATALOGUE.invoices).parse(
      await body(capped, "/v1/billing/invoices?page=2"),
    );
    expect(invoicePast).toEqual({
      is_empty: true,
      invoices: [],
      pagination: { current_page: 2, per_page: 25, total: 3, total_pages: 1 },
    });
    const empty = answered(CATALOGUE.cdrs).parse(
      await body(capped, "/v1/cdr?from=2027-01-01&to=2027-01-02&type=placed"),
    );
    expect(empty.pagination).toEqual({ current_page: 1, per_page: 25, total: 0, total_pages: 0 });
  });

  it("answers 400 for a page or per_page that is not a positive integer", async ({ sandbox: capped }) => {
    for (const bad of ["page=0", "page=abc", "page=-1", "per_page=0", "per_page=2.5"]) {
      const answer = await get(capped, `${CDR_WINDOW}&${bad}`);
      expect(answer.status).toBe(400);
      const name = bad.split("=")[0]!;
      expect(errorBodySchema.parse(JSON.parse(answer.text)).message).toBe(
        `Missing or invalid parameter ${name}`,
      );
    }
  });

  it("serves in the documented order: CDRs by date then uuid, clicks by created_at, link, phone, invoices newest first", async ({
    sandbox: capped,
  }) => {
    const cdrs = (await pages(capped, CDR_WINDOW, "items", 40)).flat().map((r) => cdrSchema.parse(r));
    const cdrKeys = cdrs.map((c) => `${c.date}|${c.uuid}`);
    expect(cdrKeys).toEqual([...cdrKeys].sort());
    expect(new Set(cdrs.map((c) => c.date!.slice(0, 10)))).toEqual(
      new Set(["2026-08-04", "2026-08-05", "2026-08-06", "2026-08-07"]),
    );
    const clicks = (await pages(capped, LINK_WINDOW, "metrics", 40))
      .flat()
      .map((r) => shortLinkMetricSchema.parse(r));
    const clickKeys = clicks.map((c) => `${c.created_at}|${c.link_hash}|${c.phone}`);
    expect(clickKeys).toEqual([...clickKeys].sort());
    const invoices = (await pages(capped, "/v1/billing/invoices?x=1", "invoices", 1))
      .flat()
      .map((r) => invoiceSchema.parse(r));
    expect(invoices.map((i) => i.from_date)).toEqual(["2026-10-01", "2026-09-01", "2026-08-01"]);
    const numbers = (await pages(capped, "/v1/buy/countries/1/cities/101/dids?x=1", "dids", 10))
      .flat()
      .map((r) => (r as { number: string }).number);
    expect(numbers).toEqual([...numbers].sort());
  });

  it("shuffles rows within each page with the shuffle option: same rows per page, another order, reproducibly", async ({
    sandbox: capped,
    launchSandbox,
  }) => {
    const shuffled = await launchSandbox({ ...WORLD, maxPerPage: 40, shuffle: true });
    const lists = [
      { path: CDR_WINDOW, field: "items" },
      { path: LINK_WINDOW, field: "metrics" },
      { path: "/v1/buy/countries/1/cities/101/dids?x=1", field: "dids" },
    ] as const;
    for (const { path, field } of lists) {
      const plain = await pages(capped, path, field, 20);
      const mixed = await pages(shuffled, path, field, 20);
      expect(mixed).toHaveLength(plain.length);
      let reordered = 0;
      plain.forEach((rows, p) => {
        const canon = (list: unknown[]) => list.map((r) => JSON.stringify(r));
        expect(canon(mixed[p]!).sort()).toEqual(canon(rows).sort());
        if (canon(mixed[p]!).join() !== canon(rows).join()) reordered += 1;
      });
      expect(reordered).toBeGreaterThan(0);
      const again = await get(shuffled, `${path}&per_page=20&page=1`);
      expect(again.text).toBe((await get(shuffled, `${path}&per_page=20&page=1`)).text);
    }
  });

  it("serves the same bytes when generated days are evicted from a tiny cache between pages", async ({
    sandbox: capped,
    launchSandbox,
  }) => {
    const tiny = await launchSandbox({ ...WORLD, maxPerPage: 40, cacheRows: 30 });
    for (const type of ["placed", "received"]) {
      const path = `/v1/cdr?from=2026-08-02&to=2026-08-09&type=${type}&per_page=40`;
      const total = answered(CATALOGUE.cdrs).parse(await body(capped, path)).pagination.total_pages;
      expect(total).toBeGreaterThan(2);
      for (let page = 1; page <= total; page++) {
        const a = await get(capped, `${path}&page=${page}`);
        // Another day in between evicts the window's days from the tiny cache.
        await get(tiny, `/v1/cdr?from=2026-09-0${1 + (page % 9)}&to=2026-09-0${1 + (page % 9)}&type=${type}`);
        expect((await get(tiny, `${path}&page=${page}`)).text).toBe(a.text);
      }
    }
  });
});
