import type {
  AccountCostDay,
  CallsDay,
  CampaignFunnel,
  InvoiceVariance,
  SentimentDay,
} from "./marts-facts.js";
import type { NightWindow } from "./night-facts.js";
import { renderSvgChart } from "./svg-chart.js";

/**
 * The page's charts, one function each, from the facts to an SVG string. Each names its series so
 * the legend (and a reader of the SVG) knows what every mark is.
 */

const GRID = { left: 64, right: 64, top: 72, bottom: 64 } as const;
/** The loader's charts have a legend of many streams: two rows of it. */
const GRID_TWO_LEGEND_ROWS = { ...GRID, top: 104 } as const;
const TITLE_STYLE = { fontSize: 14, fontWeight: "bold" } as const;
const LEGEND = { top: 28, left: 8, right: 8, type: "plain", textStyle: { fontSize: 11 } } as const;
const BAR_MAX_WIDTH = 40;

function title(text: string) {
  return { text, left: 8, top: 4, textStyle: TITLE_STYLE };
}

/** The x-axis category of a slice: a window's first day, or what a windowless slice is. */
export function sliceCategory(slice: string): string {
  const window = /^(\d{4}-\d{2}-\d{2})\.\./.exec(slice);
  if (window) return window[1]!;
  return slice === "full" ? "full" : "lookups";
}

function categoriesOf(windows: readonly NightWindow[]): string[] {
  const windowed = [...new Set(windows.map((w) => sliceCategory(w.slice)))];
  const days = windowed.filter((c) => /^\d/.test(c)).sort();
  return [...days, ...windowed.filter((c) => !/^\d/.test(c)).sort()];
}

/** Sum of `measure` per category of one stream's windows. */
function perCategory(
  windows: readonly NightWindow[],
  categories: readonly string[],
  measure: (w: NightWindow) => number,
): number[] {
  const sums = new Map<string, number>();
  for (const w of windows) {
    const category = sliceCategory(w.slice);
    sums.set(category, (sums.get(category) ?? 0) + measure(w));
  }
  return categories.map((c) => sums.get(c) ?? 0);
}

function streamsOf(windows: readonly NightWindow[]): string[] {
  return [...new Set(windows.map((w) => w.stream))].sort();
}

function axisLabel(categories: readonly string[]) {
  return { rotate: categories.length > 12 ? 45 : 0, fontSize: 10 };
}

/** Rows fetched per window of one account's run, stacked by stream. */
export function rowsPerWindowChart(account: string, windows: readonly NightWindow[]): string {
  const categories = categoriesOf(windows);
  return renderSvgChart({
    title: title(`${account}: rows fetched per window`),
    legend: LEGEND,
    grid: GRID_TWO_LEGEND_ROWS,
    xAxis: { type: "category", data: categories, axisLabel: axisLabel(categories) },
    yAxis: { type: "value", name: "rows" },
    series: streamsOf(windows).map((stream) => ({
      name: stream,
      type: "bar",
      stack: "rows",
      data: perCategory(
        windows.filter((w) => w.stream === stream),
        categories,
        (w) => w.rowsFetched,
      ),
    })),
  });
}

/** Requests per window of one account's run, stacked by stream, with the 429s and retries among them. */
export function requestsPerWindowChart(account: string, windows: readonly NightWindow[]): string {
  const categories = categoriesOf(windows);
  return renderSvgChart({
    title: title(`${account}: requests per window (with 429s and retries)`),
    legend: LEGEND,
    grid: GRID_TWO_LEGEND_ROWS,
    xAxis: { type: "category", data: categories, axisLabel: axisLabel(categories) },
    yAxis: { type: "value", name: "requests" },
    series: [
      ...streamsOf(windows).map((stream) => ({
        name: stream,
        type: "bar",
        stack: "requests",
        data: perCategory(
          windows.filter((w) => w.stream === stream),
          categories,
          (w) => w.requests,
        ),
      })),
      {
        name: "429 answers",
        type: "line",
        symbol: "circle",
        lineStyle: { color: "#c23531", width: 2 },
        itemStyle: { color: "#c23531" },
        data: perCategory(windows, categories, (w) => w.throttled),
      },
      {
        name: "retries",
        type: "line",
        symbol: "triangle",
        lineStyle: { color: "#333333", type: "dashed", width: 2 },
        itemStyle: { color: "#333333" },
        data: perCategory(windows, categories, (w) => w.retries),
      },
    ],
  });
}

/** Calls and answered calls per day (bars) with the ASR (line, right axis). */
export function callsPerDayChart(days: readonly CallsDay[]): string {
  return renderSvgChart({
    title: title("Calls and ASR per day (UTC)"),
    legend: LEGEND,
    grid: GRID,
    xAxis: { type: "category", data: days.map((d) => d.day), axisLabel: axisLabel(days.map((d) => d.day)) },
    yAxis: [
      { type: "value", name: "calls" },
      { type: "value", name: "ASR %", min: 0, max: 100, splitLine: { show: false } },
    ],
    series: [
      { name: "calls", type: "bar", barMaxWidth: BAR_MAX_WIDTH, data: days.map((d) => d.calls) },
      { name: "answered", type: "bar", barMaxWidth: BAR_MAX_WIDTH, data: days.map((d) => d.answered) },
      {
        name: "ASR %",
        type: "line",
        yAxisIndex: 1,
        data: days.map((d) => (d.asrPct === null ? null : Number(d.asrPct))),
      },
    ],
  });
}

/** Call cost per day, stacked by account. */
export function costPerDayChart(costs: readonly AccountCostDay[]): string {
  const days = [...new Set(costs.map((c) => c.day))].sort();
  const accounts = [...new Set(costs.map((c) => c.account))].sort();
  const cost = new Map(costs.map((c) => [`${c.day} ${c.account}`, Number(c.costUsd)]));
  return renderSvgChart({
    title: title("Call cost per day (USD, UTC)"),
    legend: LEGEND,
    grid: GRID,
    xAxis: { type: "category", data: days, axisLabel: axisLabel(days) },
    yAxis: { type: "value", name: "USD" },
    series: accounts.map((account) => ({
      name: account,
      type: "bar",
      stack: "cost",
      barMaxWidth: BAR_MAX_WIDTH,
      data: days.map((day) => cost.get(`${day} ${account}`) ?? 0),
    })),
  });
}

/** Scored calls per day (bars) with the average score 1–5 (line, right axis). */
export function sentimentPerDayChart(days: readonly SentimentDay[]): string {
  return renderSvgChart({
    title: title("Sentiment per day (UTC)"),
    legend: LEGEND,
    grid: GRID,
    xAxis: { type: "category", data: days.map((d) => d.day), axisLabel: axisLabel(days.map((d) => d.day)) },
    yAxis: [
      { type: "value", name: "calls" },
      { type: "value", name: "score", min: 1, max: 5, splitLine: { show: false } },
    ],
    series: [
      { name: "scored calls", type: "bar", barMaxWidth: BAR_MAX_WIDTH, data: days.map((d) => d.scoredCalls) },
      {
        name: "negative calls",
        type: "bar",
        barMaxWidth: BAR_MAX_WIDTH,
        data: days.map((d) => d.negativeCalls),
      },
      {
        name: "average score",
        type: "line",
        yAxisIndex: 1,
        data: days.map((d) => (d.averageScore === null ? null : Number(d.averageScore))),
      },
    ],
  });
}

/** The four steps of the campaign funnel, summed over every campaign. */
export function funnelSteps(funnel: readonly CampaignFunnel[]): { name: string; value: number }[] {
  const sum = (pick: (c: CampaignFunnel) => number) => funnel.reduce((total, c) => total + pick(c), 0);
  return [
    { name: "sent", value: sum((c) => c.sent) },
    { name: "delivered", value: sum((c) => c.delivered) },
    { name: "unique clickers", value: sum((c) => c.uniqueClickers) },
    { name: "converted (called)", value: sum((c) => c.convertedClickers) },
  ];
}

/** The campaign funnel over every campaign: sent, delivered, unique clickers, converted. */
export function campaignFunnelChart(funnel: readonly CampaignFunnel[]): string {
  const steps = funnelSteps(funnel);
  return renderSvgChart(
    {
      title: title("Campaign funnel (every campaign, whole life)"),
      legend: LEGEND,
      series: [
        {
          name: "funnel",
          type: "funnel",
          top: 64,
          bottom: 16,
          left: "10%",
          width: "80%",
          sort: "none",
          minSize: "4%",
          label: { show: true, position: "inside", formatter: "{b}: {c}" },
          data: steps,
        },
      ],
    },
    { width: 1000, height: 340 },
  );
}

/** Each invoice's variance (invoiced − usage of its period), red when beyond the tolerance. */
export function invoiceVarianceChart(invoices: readonly InvoiceVariance[]): string {
  const labels = invoices.map((i) => `${i.account} ${i.periodStart.slice(0, 7)}`);
  return renderSvgChart({
    title: title("Invoice variance: invoiced − usage of the period (USD)"),
    grid: { ...GRID, top: 48 },
    xAxis: { type: "category", data: labels, axisLabel: axisLabel(labels) },
    yAxis: { type: "value", name: "USD" },
    series: [
      {
        name: "variance",
        type: "bar",
        barMaxWidth: BAR_MAX_WIDTH,
        data: invoices.map((i) => ({
          value: Number(i.varianceUsd),
          itemStyle: { color: i.isWithinTolerance ? "#59a14f" : "#e15759" },
        })),
      },
    ],
  });
}
