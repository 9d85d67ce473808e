import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import type { Browser } from "playwright-core";
import { addDays } from "../../src/core/utc-days.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { launchChromium } from "../helpers/headless-chromium.js";

/**
 * Issue 15 §4, the night's page: `report` before anything is built says the marts are missing;
 * `nightly --report` (one load, one dbt build) writes the page, which a real headless Chromium
 * opens from the file: nothing fetched, no console error, every chart drawn with marks for each of
 * its series, the calls chart's bars in proportion to the calls, and every figure of its tables
 * equal to what this file reads from the marts with its own queries (or, for the loader, to what
 * the sandbox counted and its truth export holds). `docs --generate-only` writes dbt's site.
 */
const START = "2026-08-01";
const NOW = "2026-09-03T00:00:00Z";
const CDR_ROUTE = "GET /v1/cdr";
// One account (the CLI's `default`), a month and two days (an invoice closes on the month's end),
// every CDR visible at once (no late rows), and 429s on the CDR list only, so the sandbox's own
// count of that route is the oracle of the cdrs stream's requests and 429s.
it.override({
  sandboxOptions: {
    seed: 23,
    start: START,
    days: 33,
    accounts: 1,
    callsPerDay: 30,
    now: NOW,
    lateShare: 0,
    faults: { base: "none", retryAfterSeconds: 0, routes: { [CDR_ROUTE]: { requests: { http429: 0.15 } } } },
  },
  databaseOptions: { migrate: false },
});

const DBT_TIMEOUT = { timeout: 420_000 };

/** The little of the DOM the in-page function below uses (the project compiles without the DOM library). */
interface PageElement {
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  getBoundingClientRect(): { readonly width: number; readonly height: number };
}
/** The page's document, inside `page.evaluate` only. */
declare const document: PageElement;

/** What the page shows, as Chromium rendered it. */
interface RenderedPage {
  readonly consoleErrors: string[];
  readonly requests: string[];
  readonly marts: string | null;
  readonly martsText: string;
  /** Table name → row key → column → text. */
  readonly tables: Record<string, Record<string, Record<string, string>>>;
  /** Per chart: the series its legend names and, per series index, its marks and how many are drawn. */
  readonly charts: Record<string, { series: number[]; marks: Record<number, number>; drawn: number }>;
  /** Heights (px) of the calls chart's first series' bars, by data index. */
  readonly callBarHeights: number[];
}

async function render(browser: Browser, file: string): Promise<RenderedPage> {
  const page = await browser.newPage();
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  const url = pathToFileURL(file).href;
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  page.on("request", (request) => {
    if (request.url() !== url) requests.push(request.url());
  });
  try {
    await page.goto(url, { waitUntil: "load" });
    const rendered = await page.evaluate(() => {
      const tables: Record<string, Record<string, Record<string, string>>> = {};
      for (const table of document.querySelectorAll("table[data-table]")) {
        const rows: Record<string, Record<string, string>> = {};
        for (const row of table.querySelectorAll("tbody tr[data-key]")) {
          const cells: Record<string, string> = {};
          for (const cell of row.querySelectorAll("td[data-col]"))
            cells[cell.getAttribute("data-col")!] = cell.textContent ?? "";
          rows[row.getAttribute("data-key")!] = cells;
        }
        tables[table.getAttribute("data-table")!] = rows;
      }
      const charts: Record<string, { series: number[]; marks: Record<number, number>; drawn: number }> = {};
      for (const figure of document.querySelectorAll("figure[data-chart]")) {
        const legend = [...figure.querySelectorAll('[ecmeta_ssr_type="legend"]')].map((e) =>
          Number(e.getAttribute("ecmeta_series_index")),
        );
        const marks: Record<number, number> = {};
        let drawn = 0;
        for (const mark of figure.querySelectorAll('[ecmeta_ssr_type="chart"]')) {
          const index = Number(mark.getAttribute("ecmeta_series_index"));
          marks[index] = (marks[index] ?? 0) + 1;
          const box = mark.getBoundingClientRect();
          if (box.width > 0 || box.height > 0) drawn++;
        }
        charts[figure.getAttribute("data-chart")!] = { series: [...new Set(legend)].sort(), marks, drawn };
      }
      const bars = [
        ...document.querySelectorAll(
          'figure[data-chart="calls-per-day"] [ecmeta_ssr_type="chart"][ecmeta_series_index="0"]',
        ),
      ];
      const callBarHeights: number[] = [];
      for (const bar of bars)
        callBarHeights[Number(bar.getAttribute("ecmeta_data_index"))] = bar.getBoundingClientRect().height;
      const marts = document.querySelector("section[data-marts]");
      return {
        tables,
        charts,
        callBarHeights,
        marts: marts?.getAttribute("data-marts") ?? null,
        martsText: marts?.textContent ?? "",
      };
    });
    return { consoleErrors, requests, ...rendered };
  } finally {
    await page.close();
  }
}

const count = (n: number | string) => Number(n).toLocaleString("en-US");

describe("the night's page (report, nightly --report) in a real Chromium", () => {
  it(
    "before any build the page says the marts are missing; after nightly it shows the night and the marts' figures",
    DBT_TIMEOUT,
    async ({ sandbox, database }) => {
      const folder = await mkdtemp(path.join(tmpdir(), "night-report-"));
      const browser = await launchChromium();
      try {
        const env = {
          TELECOM_API_URL: sandbox.url,
          TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
          DATABASE_URL: database.url,
          TELECOM_ETL_START_DATE: START,
          TELECOM_ETL_NOW: NOW,
        };

        // A folder that does not exist: one line, exit 2, before anything runs.
        const missingFolder = path.join(folder, "nope", "night.html");
        const refused = await runCli(["nightly", "--report", missingFolder], { env });
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr.trim()).toBe(
          `telecom-etl: report: folder ${path.dirname(missingFolder)} does not exist; create it or give another path`,
        );

        const before = path.join(folder, "before.html");
        const empty = await runCli(["report", "--out", before], { env });
        expect(empty.code, empty.stderr.slice(-2000)).toBe(0);
        expect(empty.stdout).toContain(`report: ${before} (no run yet; the marts are not built yet`);
        const unbuilt = await render(browser, before);
        expect(unbuilt.consoleErrors).toEqual([]);
        expect(unbuilt.requests).toEqual([]);
        expect(unbuilt.marts).toBe("missing");
        expect(unbuilt.martsText).toMatch(
          /The marts are not built yet \(analytics_marts\.rpt_call_kpis_daily, .*\): run telecom-etl transform/,
        );
        expect(Object.keys(unbuilt.charts)).toEqual([]);

        const file = path.join(folder, "night.html");
        const nightly = await runCli(["nightly", "--report", file], { env, timeoutMs: 400_000 });
        expect(nightly.code, nightly.stderr.slice(-3000)).toBe(0);
        expect(nightly.stdout).toMatch(/dbt build: PASS=\d+ WARN=0 ERROR=0/);
        expect(nightly.stdout).toMatch(new RegExp(`report: ${file} \\(run \\d+\\)`));
        const html = await readFile(file, "utf8");
        // Self-contained: no script, no link, nothing addressed over the network.
        expect(html).not.toMatch(/<script|<link|<img|@import|url\((?!#)|https?:\/\/(?!www\.w3\.org)/i);

        const page = await render(browser, file);
        expect(page.consoleErrors).toEqual([]);
        expect(page.requests).toEqual([]);
        expect(page.marts).toBe("built");

        // Every chart has marks for every series its legend names, and they are drawn.
        const expectedCharts = [
          "rows-default",
          "requests-default",
          "calls-per-day",
          "cost-per-day",
          "sentiment-per-day",
          "campaign-funnel",
          "invoice-variance",
        ];
        expect(Object.keys(page.charts).sort()).toEqual([...expectedCharts].sort());
        for (const [name, chart] of Object.entries(page.charts)) {
          const series = chart.series.length > 0 ? chart.series : [0];
          for (const index of series)
            expect(chart.marks[index] ?? 0, `${name} series ${index}`).toBeGreaterThan(0);
          expect(chart.drawn, name).toBeGreaterThan(0);
        }

        const db = database.warehouse.db;
        // Calls, ASR and cost per day, from the call facts (not the daily mart the page reads).
        const calls = await sql<{
          day: string;
          calls: number;
          answered: number;
          asr: string | null;
          cost: string;
        }>`
          WITH days AS (SELECT max(call_date) AS last FROM analytics_marts.fct_calls)
          SELECT to_char(call_date, 'YYYY-MM-DD') AS day,
                 count(*) FILTER (WHERE NOT is_child_leg)::int AS calls,
                 count(*) FILTER (WHERE NOT is_child_leg AND is_answered)::int AS answered,
                 round(100.0 * count(*) FILTER (WHERE NOT is_child_leg AND is_answered)
                       / nullif(count(*) FILTER (WHERE NOT is_child_leg), 0), 1)::text AS asr,
                 round(coalesce(sum(total_cost_usd), 0), 2)::text AS cost
          FROM analytics_marts.fct_calls, days WHERE call_date > days.last - 31
          GROUP BY call_date ORDER BY call_date`.execute(db);
        expect(calls.rows.length).toBe(31);
        expect(page.tables["calls-per-day"]).toEqual(
          Object.fromEntries(
            calls.rows.map((r) => [
              r.day,
              {
                day: r.day,
                calls: count(r.calls),
                answered: count(r.answered),
                asr: r.asr ?? "—",
                cost: r.cost,
              },
            ]),
          ),
        );
        expect(page.charts["calls-per-day"]!.marks[0]).toBe(calls.rows.length);
        // The bars are the calls: each in proportion to the tallest.
        const tallest = Math.max(...calls.rows.map((r) => r.calls));
        const tallestPx = Math.max(...page.callBarHeights);
        for (const [i, r] of calls.rows.entries())
          expect(page.callBarHeights[i]! / tallestPx, r.day).toBeCloseTo(r.calls / tallest, 1);

        // Sentiment per day, from the transcription facts.
        const sentiment = await sql<{
          day: string;
          scored: number;
          average: string | null;
          negative: number;
        }>`
          WITH days AS (SELECT max(call_date) AS last FROM analytics_marts.fct_call_transcriptions)
          SELECT to_char(call_date, 'YYYY-MM-DD') AS day, count(score)::int AS scored,
                 round(avg(score)::numeric, 2)::text AS average,
                 count(*) FILTER (WHERE is_negative)::int AS negative
          FROM analytics_marts.fct_call_transcriptions, days WHERE call_date > days.last - 31
          GROUP BY call_date ORDER BY call_date`.execute(db);
        expect(sentiment.rows.length).toBeGreaterThan(0);
        expect(page.tables["sentiment-per-day"]).toEqual(
          Object.fromEntries(
            sentiment.rows.map((r) => [
              r.day,
              { day: r.day, scored: count(r.scored), average: r.average ?? "—", negative: count(r.negative) },
            ]),
          ),
        );

        // The campaign funnel, from the message and click facts.
        const funnel = await sql<{ account: string; campaign: string; sent: number; delivered: number }>`
          SELECT account, campaign, count(*)::int AS sent,
                 count(*) FILTER (WHERE is_delivered)::int AS delivered
          FROM analytics_marts.fct_campaign_messages GROUP BY 1, 2`.execute(db);
        const clickers = await sql<{ account: string; campaign: string; clickers: number }>`
          SELECT account, campaign, count(DISTINCT clicker_phone)::int AS clickers
          FROM analytics_marts.fct_link_clicks GROUP BY 1, 2`.execute(db);
        expect(funnel.rows.length).toBeGreaterThan(0);
        const campaigns = new Set(
          [...funnel.rows, ...clickers.rows].map((r) => `${r.account}/${r.campaign}`),
        );
        const funnelTable = page.tables["campaign-funnel"]!;
        expect(Object.keys(funnelTable).sort()).toEqual([...campaigns].sort());
        for (const key of campaigns) {
          const sent = funnel.rows.find((r) => `${r.account}/${r.campaign}` === key);
          const clicked = clickers.rows.find((r) => `${r.account}/${r.campaign}` === key);
          expect(funnelTable[key], key).toMatchObject({
            sent: count(sent?.sent ?? 0),
            delivered: count(sent?.delivered ?? 0),
            clickers: count(clicked?.clickers ?? 0),
          });
        }

        // Invoice variances, from the reconciliation mart.
        const invoices = await sql<{
          key: string;
          invoiced: string;
          usage: string;
          variance: string;
          within: boolean;
        }>`
          SELECT account || '/' || invoice_id AS key, round(invoiced_usd, 2)::text AS invoiced,
                 round(usage_usd, 2)::text AS usage, round(invoiced_usd - usage_usd, 2)::text AS variance,
                 is_within_tolerance AS within
          FROM analytics_marts.fct_invoices_reconciled WHERE product = 'invoice_total'`.execute(db);
        expect(invoices.rows.length).toBeGreaterThan(0);
        const invoiceTable = page.tables["invoice-variance"]!;
        expect(Object.keys(invoiceTable).sort()).toEqual(invoices.rows.map((r) => r.key).sort());
        for (const r of invoices.rows) {
          const shown = invoiceTable[r.key]!;
          expect([shown.invoiced, shown.usage, shown.variance, shown.within], r.key).toEqual([
            r.invoiced,
            r.usage,
            r.variance,
            r.within ? "yes" : "no",
          ]);
        }

        // The loader: the cdrs stream's requests and 429s are what the sandbox counted on its
        // route; its rows fetched are the truth's CDRs; settled through is the last day read 72 h
        // after its end.
        const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
          routes: Record<string, Record<string, number>>;
        };
        const answers = stats.routes[CDR_ROUTE]!;
        expect(answers["429"]).toBeGreaterThan(0);
        const truth = await fetch(
          `${sandbox.url}/_sandbox/truth/cdrs?account=${sandbox.world.accounts[0]!.name}&from=${START}&to=2026-12-31`,
        );
        const truthRows = (await truth.text()).split("\n").filter((line) => line.trim() !== "").length;
        const cdrs = page.tables["streams-default"]!["default/cdrs"]!;
        expect(cdrs.requests).toBe(count(Object.values(answers).reduce((a, b) => a + b, 0)));
        expect(cdrs.throttled).toBe(count(answers["429"]!));
        expect(Number(cdrs.retries!.replaceAll(",", ""))).toBeGreaterThanOrEqual(answers["429"]!);
        expect(cdrs.rows).toBe(count(truthRows));
        expect(cdrs.settled_through).toBe(addDays(NOW.slice(0, 10), -4));
        expect(cdrs.held).toBe("0");
        expect(cdrs.freshness).toMatch(/ago, fresh$/);
        // One series per stream the run read, then the 429s and the retries.
        const streamsRead = new Set(Object.values(page.tables["windows-default"]!).map((w) => w.stream));
        expect(page.charts["requests-default"]!.series.length).toBe(streamsRead.size + 2);
      } finally {
        await browser.close();
        await rm(folder, { recursive: true, force: true });
      }
    },
  );

  it(
    "docs --generate-only writes dbt's site of the marts: index.html and a catalog with their columns",
    DBT_TIMEOUT,
    async ({ database }) => {
      const result = await runCli(["docs", "--generate-only"], {
        env: { DATABASE_URL: database.url },
        timeoutMs: 400_000,
      });
      expect(result.code, result.stderr.slice(-3000)).toBe(0);
      const site = /^docs: (\S+) /m.exec(result.stdout)?.[1];
      expect(site, result.stdout).toBeDefined();
      try {
        expect(existsSync(path.join(site!, "index.html"))).toBe(true);
        expect(existsSync(path.join(site!, "static_index.html"))).toBe(true);
        const catalog = JSON.parse(await readFile(path.join(site!, "catalog.json"), "utf8")) as {
          nodes: Record<
            string,
            { metadata: { schema: string }; columns: Record<string, { comment: string | null }> }
          >;
        };
        const kpis = Object.entries(catalog.nodes).find(([id]) => id.endsWith(".rpt_call_kpis_daily"))?.[1];
        expect(kpis?.metadata.schema).toBe("analytics_marts");
        expect(Object.keys(kpis?.columns ?? {})).toEqual(
          expect.arrayContaining(["call_date", "root_call_attempts"]),
        );
      } finally {
        await rm(path.dirname(site!), { recursive: true, force: true });
      }
    },
  );
});
