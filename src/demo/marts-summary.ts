import { sql } from "kysely";
import { addDays } from "../core/utc-days.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";

const MARTS = "analytics_marts";

/** What a BI user would look at first, read from the marts only (never the landing tables). */
interface MartsFigures {
  readonly calls: { legs: number; roots: number; answered: number; cost: string | null; missing: number };
  readonly sentiment: { scored: number; average: string | null };
  readonly topCampaign: { account: string; campaign: string; clickers: number; ctr: string | null } | null;
  readonly variances: readonly { account: string; month: string; variance: string }[];
  readonly invoices: number;
}

async function martsExist(warehouse: Warehouse): Promise<boolean> {
  const names = [
    "rpt_call_kpis_daily",
    "rpt_sentiment_daily",
    "rpt_campaign_totals",
    "fct_invoices_reconciled",
  ];
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM information_schema.tables
    WHERE table_schema = ${MARTS} AND table_name IN (${sql.join(names)})`.execute(warehouse.db);
  return rows[0]?.n === names.length;
}

async function readFigures(warehouse: Warehouse, day: string): Promise<MartsFigures> {
  const db = warehouse.db;
  const calls = await sql<MartsFigures["calls"]>`
    SELECT coalesce(sum(leg_attempts), 0)::int AS legs, coalesce(sum(root_call_attempts), 0)::int AS roots,
           coalesce(sum(answered_calls), 0)::int AS answered, sum(cost_usd)::numeric(14, 2)::text AS cost,
           coalesce(sum(missing_charge_count), 0)::int AS missing
    FROM analytics_marts.rpt_call_kpis_daily WHERE call_date = ${day}::date`.execute(db);
  const sentiment = await sql<MartsFigures["sentiment"]>`
    SELECT coalesce(sum(scored_calls), 0)::int AS scored,
           (sum(score_sum) / nullif(sum(scored_calls), 0))::numeric(4, 2)::text AS average
    FROM analytics_marts.rpt_sentiment_daily WHERE call_date = ${day}::date`.execute(db);
  const campaign = await sql<NonNullable<MartsFigures["topCampaign"]>>`
    SELECT account, campaign, unique_clickers::int AS clickers,
           (100 * click_through_rate)::numeric(6, 1)::text AS ctr
    FROM analytics_marts.rpt_campaign_totals
    ORDER BY unique_clickers DESC, account, campaign LIMIT 1`.execute(db);
  const invoices = await sql<{ account: string; month: string; variance: string; within: boolean }>`
    SELECT account, to_char(period_start_date, 'YYYY-MM') AS month,
           to_char(variance_usd, 'SFM999999990.00') AS variance, is_within_tolerance AS within
    FROM analytics_marts.fct_invoices_reconciled WHERE product = 'invoice_total'
    ORDER BY abs(variance_usd) DESC, account, month`.execute(db);
  return {
    calls: calls.rows[0]!,
    sentiment: sentiment.rows[0]!,
    topCampaign: campaign.rows[0] ?? null,
    variances: invoices.rows.filter((row) => !row.within),
    invoices: invoices.rows.length,
  };
}

/**
 * The demo's closing summary, read from the marts: yesterday's calls, cost, ASR and average
 * sentiment, the campaign with the most unique clickers, and the invoices whose amount differs from
 * the usage of their period beyond the tolerance. Empty when the marts were not built.
 */
export async function martsSummary(warehouse: Warehouse, today: string): Promise<string[]> {
  if (!(await martsExist(warehouse))) return [];
  const yesterday = addDays(today, -1);
  const f = await readFigures(warehouse, yesterday);
  const asr = f.calls.roots === 0 ? "n/a" : `${((100 * f.calls.answered) / f.calls.roots).toFixed(1)}%`;
  const lines = [
    `from the marts (${MARTS}), yesterday ${yesterday} (UTC):`,
    `  calls: ${f.calls.roots} (${f.calls.legs} legs), answered ${f.calls.answered}, ASR ${asr}, cost $${f.calls.cost ?? "0.00"}` +
      (f.calls.missing > 0 ? ` (+${f.calls.missing} legs missing a charge)` : ""),
    `  sentiment: average ${f.sentiment.average ?? "n/a"} of 5 over ${f.sentiment.scored} transcribed calls`,
    f.topCampaign
      ? `  top campaign: ${f.topCampaign.campaign} (${f.topCampaign.account}), ${f.topCampaign.clickers} unique clickers, CTR ${f.topCampaign.ctr ?? "n/a"}%`
      : "  top campaign: none yet",
    f.variances.length === 0
      ? `  invoices: all ${f.invoices} match their usage within the tolerance`
      : `  invoices: ${f.variances.length} of ${f.invoices} differ from their usage: ` +
        f.variances.map((v) => `${v.account} ${v.month} ${v.variance} USD`).join(", "),
  ];
  return lines;
}
