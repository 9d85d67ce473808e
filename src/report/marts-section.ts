import { chartFigure, escapeHtml, formatCount, htmlTable } from "./html.js";
import { MARTS_SCHEMA, type MartsFacts, REPORT_DAYS } from "./marts-facts.js";
import {
  callsPerDayChart,
  campaignFunnelChart,
  costPerDayChart,
  funnelSteps,
  invoiceVarianceChart,
  sentimentPerDayChart,
} from "./night-charts.js";

/**
 * The marts' half of the page: calls, ASR and cost per day, sentiment per day, the campaign funnel
 * and the invoices' variances, each as a chart and as the table of its figures. A part with no
 * data says so instead of drawing an empty chart.
 */

function callsPart(facts: MartsFacts): string {
  if (facts.calls.length === 0) return `<h3>Calls</h3><p class="muted">No calls in the marts yet.</p>`;
  const first = facts.calls[0]!.day;
  const last = facts.calls.at(-1)!.day;
  return [
    `<h3>Calls, ASR and cost per day</h3><p class="muted">${first} to ${last} (the last ${REPORT_DAYS} days the marts hold, UTC; <code>rpt_call_kpis_daily</code>; a call is a placed or received call, not each leg).</p>`,
    chartFigure("calls-per-day", callsPerDayChart(facts.calls)),
    chartFigure("cost-per-day", costPerDayChart(facts.costByAccount)),
    `<details><summary>the figures, day by day</summary>`,
    htmlTable(
      "calls-per-day",
      [
        { key: "day", label: "day" },
        { key: "calls", label: "calls", numeric: true },
        { key: "answered", label: "answered", numeric: true },
        { key: "asr", label: "ASR %", numeric: true },
        { key: "cost", label: "cost USD", numeric: true },
      ],
      facts.calls.map((d) => ({
        key: d.day,
        cells: [d.day, formatCount(d.calls), formatCount(d.answered), d.asrPct ?? "—", d.costUsd],
      })),
    ),
    `</details>`,
  ].join("\n");
}

function sentimentPart(facts: MartsFacts): string {
  if (facts.sentiment.length === 0)
    return `<h3>Sentiment</h3><p class="muted">No transcribed calls in the marts yet.</p>`;
  return [
    `<h3>Sentiment per day</h3><p class="muted">Scores 1–5 of transcribed calls; negative when ≤ 3 (<code>rpt_sentiment_daily</code>).</p>`,
    chartFigure("sentiment-per-day", sentimentPerDayChart(facts.sentiment)),
    `<details><summary>the figures, day by day</summary>`,
    htmlTable(
      "sentiment-per-day",
      [
        { key: "day", label: "day" },
        { key: "scored", label: "scored calls", numeric: true },
        { key: "average", label: "average score", numeric: true },
        { key: "negative", label: "negative calls", numeric: true },
      ],
      facts.sentiment.map((d) => ({
        key: d.day,
        cells: [d.day, formatCount(d.scoredCalls), d.averageScore ?? "—", formatCount(d.negativeCalls)],
      })),
    ),
    `</details>`,
  ].join("\n");
}

function funnelPart(facts: MartsFacts): string {
  const steps = funnelSteps(facts.funnel);
  if (facts.funnel.length === 0 || steps[0]!.value === 0)
    return `<h3>Campaign funnel</h3><p class="muted">No campaign messages in the marts yet.</p>`;
  return [
    `<h3>Campaign funnel</h3><p class="muted">Sent, delivered, unique clickers and clickers who then called, per campaign over its whole life (<code>rpt_campaign_totals</code>).</p>`,
    chartFigure("campaign-funnel", campaignFunnelChart(facts.funnel)),
    htmlTable(
      "campaign-funnel",
      [
        { key: "account", label: "account" },
        { key: "campaign", label: "campaign" },
        { key: "sent", label: "sent", numeric: true },
        { key: "delivered", label: "delivered", numeric: true },
        { key: "clickers", label: "unique clickers", numeric: true },
        { key: "converted", label: "converted", numeric: true },
      ],
      facts.funnel.map((c) => ({
        key: `${c.account}/${c.campaign}`,
        cells: [
          c.account,
          c.campaign,
          formatCount(c.sent),
          formatCount(c.delivered),
          formatCount(c.uniqueClickers),
          formatCount(c.convertedClickers),
        ],
      })),
    ),
  ].join("\n");
}

function invoicesPart(facts: MartsFacts): string {
  if (facts.invoices.length === 0)
    return `<h3>Invoices</h3><p class="muted">No invoices in the marts yet.</p>`;
  const beyond = facts.invoices.filter((i) => !i.isWithinTolerance).length;
  const verdict =
    beyond === 0
      ? `<p class="ok">All ${facts.invoices.length} invoices match the usage of their period within the tolerance.</p>`
      : `<p class="bad">${beyond} of ${facts.invoices.length} invoices differ from the usage of their period beyond the tolerance (see <code>fct_invoices_reconciled</code> for the products).</p>`;
  return [
    `<h3>Invoice variances</h3>`,
    verdict,
    chartFigure("invoice-variance", invoiceVarianceChart(facts.invoices)),
    htmlTable(
      "invoice-variance",
      [
        { key: "account", label: "account" },
        { key: "invoice", label: "invoice" },
        { key: "period", label: "period" },
        { key: "invoiced", label: "invoiced USD", numeric: true },
        { key: "usage", label: "usage USD", numeric: true },
        { key: "variance", label: "variance USD", numeric: true },
        { key: "within", label: "within tolerance" },
      ],
      facts.invoices.map((i) => ({
        key: `${i.account}/${i.invoiceId}`,
        cells: [
          i.account,
          i.invoiceId,
          `${i.periodStart}..${i.periodEnd}`,
          i.invoicedUsd,
          i.usageUsd,
          i.varianceUsd,
          { text: i.isWithinTolerance ? "yes" : "no", cls: i.isWithinTolerance ? "ok" : "bad" },
        ],
      })),
    ),
  ].join("\n");
}

/**
 * The marts' section of the page; when they are not built yet (`facts` null), a line saying so and
 * how to build them.
 */
export function martsSection(facts: MartsFacts | null, missing: readonly string[]): string {
  if (facts === null) {
    return `<section data-marts="missing"><h2>From the marts</h2><p class="bad">The marts are not built yet (${escapeHtml(missing.map((m) => `${MARTS_SCHEMA}.${m}`).join(", "))} missing): run <code>telecom-etl transform</code>, then this report again.</p></section>`;
  }
  return [
    `<section data-marts="built"><h2>From the marts (<code>${MARTS_SCHEMA}</code>)</h2>`,
    callsPart(facts),
    sentimentPart(facts),
    funnelPart(facts),
    invoicesPart(facts),
    "</section>",
  ].join("\n");
}
