import { describe, expect, it } from "vitest";
import type { MartsFacts } from "../../src/report/marts-facts.js";
import { freshnessOf, type NightFacts } from "../../src/report/night-facts.js";
import { nightPage } from "../../src/report/night-page.js";

/**
 * The night's page as a pure function of its facts: names and messages that come from outside
 * (an account, a campaign, an error) are escaped, the page carries no script or link, each chart
 * is an inline SVG with a mark per data point, and freshness follows dbt's 36 h / 72 h.
 */
const NOW = Date.parse("2026-09-03T06:00:00Z");
const HOSTILE = `<script>alert("x")</script>`;

const night: NightFacts = {
  run: {
    id: 7,
    command: "run",
    status: "partial",
    exitCode: 1,
    startedAt: new Date("2026-09-03T02:15:00Z"),
    finishedAt: new Date("2026-09-03T02:16:40Z"),
  },
  windows: [
    {
      account: "acme",
      stream: "cdrs",
      slice: "2026-09-01..2026-09-02",
      status: "succeeded",
      holdReason: null,
      error: null,
      rowsFetched: 120,
      rowsDeleted: 0,
      rowsRejected: 0,
      requests: 4,
      retries: 1,
      throttled: 1,
    },
    {
      account: "acme",
      stream: "cdrs",
      slice: "2026-09-02..2026-09-03",
      status: "held",
      holdReason: "too_many_rejects",
      error: HOSTILE,
      rowsFetched: 80,
      rowsDeleted: 2,
      rowsRejected: 9,
      requests: 2,
      retries: 0,
      throttled: 0,
    },
  ],
  streams: [
    {
      status: {
        account: "acme",
        stream: "cdrs",
        completedWindows: 30,
        firstCompleted: "2026-08-01",
        completedThrough: "2026-08-30",
        lastCompleted: "2026-08-30",
        gaps: [],
        openWindows: [],
        unsettledWindows: [],
        heldWindows: [
          {
            slice: "2026-09-02..2026-09-03",
            start: "2026-09-02",
            end: "2026-09-03",
            status: "held",
            error: HOSTILE,
            runId: 7,
            at: new Date("2026-09-03T02:16:00Z"),
          },
        ],
        failedWindows: [],
        lastRun: null,
        rows: 3600,
        rejectsPending: 9,
        rejectsTotal: 9,
        tracked: {},
      },
      lastReadAt: new Date("2026-09-03T02:16:00Z"),
      freshness: "ok",
    },
  ],
  recounts: [
    {
      account: "acme",
      stream: "cdrs",
      record: {
        windows: 12,
        requests: 24,
        differing: [
          {
            window: "2026-08-20..2026-08-21",
            counts: [
              { part: "placed", platform: 153, warehouse: 100 },
              { part: "received", platform: 40, warehouse: 40 },
            ],
          },
        ],
      },
    },
  ],
};

const marts: MartsFacts = {
  calls: [
    { day: "2026-09-01", calls: 1200, answered: 900, asrPct: "75.0", costUsd: "31.20" },
    { day: "2026-09-02", calls: 1000, answered: 700, asrPct: "70.0", costUsd: "28.05" },
  ],
  costByAccount: [
    { day: "2026-09-01", account: "acme", costUsd: "31.20" },
    { day: "2026-09-02", account: "acme", costUsd: "28.05" },
  ],
  sentiment: [{ day: "2026-09-02", scoredCalls: 40, averageScore: "3.85", negativeCalls: 9 }],
  funnel: [
    {
      account: "acme",
      campaign: HOSTILE,
      sent: 500,
      delivered: 480,
      uniqueClickers: 60,
      convertedClickers: 12,
    },
  ],
  invoices: [
    {
      account: "acme",
      invoiceId: "700319",
      periodStart: "2026-08-01",
      periodEnd: "2026-08-31",
      invoicedUsd: "103.55",
      usageUsd: "75.18",
      varianceUsd: "28.37",
      isWithinTolerance: false,
    },
  ],
};

describe("the night's page", () => {
  const html = nightPage({ night, marts, missingMarts: [], now: NOW, warehouse: "127.0.0.1:5432/warehouse" });

  it("escapes names and messages from outside and carries no script, link or image", () => {
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).not.toMatch(/<script|<link|<img|<iframe/i);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
  });

  it("draws each chart as an inline SVG with one mark per data point of each series", () => {
    const charts = [...html.matchAll(/<figure class="chart" data-chart="([^"]+)">(.*?)<\/figure>/gs)];
    expect(charts.map((c) => c[1])).toEqual([
      "rows-acme",
      "requests-acme",
      "calls-per-day",
      "cost-per-day",
      "sentiment-per-day",
      "campaign-funnel",
      "invoice-variance",
    ]);
    const marks = (svg: string, series: number) =>
      [...svg.matchAll(new RegExp(`ecmeta_series_index="${series}"[^>]*ecmeta_ssr_type="chart"`, "g"))]
        .length;
    const calls = charts.find((c) => c[1] === "calls-per-day")![2]!;
    expect(calls.startsWith("<svg")).toBe(true);
    expect([marks(calls, 0), marks(calls, 1), marks(calls, 2)]).toEqual([2, 2, 2]);
    const funnel = charts.find((c) => c[1] === "campaign-funnel")![2]!;
    expect(marks(funnel, 0)).toBe(4);
  });

  it("shows the run's totals and every held window with its reason", () => {
    expect(html).toMatch(/data-card="429s"><b>1<\/b>/);
    expect(html).toMatch(/data-card="held"><b>1<\/b>/);
    expect(html).toContain("held open 2026-09-02..2026-09-03 in run 7");
    expect(html).toContain('data-problems="1"');
  });

  it("lists the run's re-count of settled windows and every window it opened again", () => {
    expect(html).toContain('data-recount-differing="1"');
    expect(html).toContain(
      "re-count: 12 settled window(s) checked against the platform&#39;s totals (24 request(s)); 1 differed",
    );
    expect(html).toContain(
      "re-count: account acme, stream cdrs, window 2026-08-20..2026-08-21: the platform counts 153 rows (placed), the warehouse holds 100",
    );
  });

  it("says the marts are not built yet instead of drawing them", () => {
    const unbuilt = nightPage({
      night,
      marts: null,
      missingMarts: ["rpt_call_kpis_daily"],
      now: NOW,
      warehouse: "w",
    });
    expect(unbuilt).toContain("The marts are not built yet (analytics_marts.rpt_call_kpis_daily missing)");
    expect(unbuilt).not.toContain('data-chart="calls-per-day"');
  });
});

describe("freshness of a source", () => {
  it("is fresh under 36 h, late from 36 h, stale from 72 h, never without a read", () => {
    const hoursAgo = (h: number) => new Date(NOW - h * 3_600_000);
    expect(freshnessOf(hoursAgo(35.9), NOW)).toBe("ok");
    expect(freshnessOf(hoursAgo(36), NOW)).toBe("late");
    expect(freshnessOf(hoursAgo(72), NOW)).toBe("stale");
    expect(freshnessOf(null, NOW)).toBe("never");
  });
});
