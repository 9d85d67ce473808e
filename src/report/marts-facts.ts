import { type Kysely, sql } from "kysely";
import type { Database } from "../warehouse/connection/database.js";

/**
 * What BI sees, read from the marts (schema `analytics_marts`) only, for the page: calls, ASR and
 * cost per day, sentiment per day, the campaign funnel and the invoices' variances. Figures are
 * formatted by Postgres (`round(…)::text`), so money is never passed through a float.
 */

/** The marts schema BI reads. */
export const MARTS_SCHEMA = "analytics_marts";

/** The marts the page reads; when one is missing the page says the marts are not built yet. */
export const REPORT_MARTS = [
  "rpt_call_kpis_daily",
  "rpt_sentiment_daily",
  "rpt_campaign_totals",
  "fct_invoices_reconciled",
] as const;

/** Days of calls and sentiment shown: the last this many days the marts hold. */
export const REPORT_DAYS = 31;

/** One UTC day of calls, over every account. */
export interface CallsDay {
  readonly day: string;
  /** Calls placed or received (root legs); forwarded legs are not calls of their own. */
  readonly calls: number;
  readonly answered: number;
  /** Answered / calls in percent with one decimal, or null on a day without calls. */
  readonly asrPct: string | null;
  /** USD with two decimals. */
  readonly costUsd: string;
}

/** One UTC day's call cost of one account. */
export interface AccountCostDay {
  readonly day: string;
  readonly account: string;
  /** USD with two decimals. */
  readonly costUsd: string;
}

/** One UTC day of sentiment over every account. */
export interface SentimentDay {
  readonly day: string;
  readonly scoredCalls: number;
  /** Mean score 1–5 with two decimals, or null without scored calls. */
  readonly averageScore: string | null;
  readonly negativeCalls: number;
}

/** One campaign's funnel over its whole life. */
export interface CampaignFunnel {
  readonly account: string;
  readonly campaign: string;
  readonly sent: number;
  readonly delivered: number;
  readonly uniqueClickers: number;
  readonly convertedClickers: number;
}

/** One invoice's total against the usage of its period. */
export interface InvoiceVariance {
  readonly account: string;
  readonly invoiceId: string;
  readonly periodStart: string;
  readonly periodEnd: string;
  readonly invoicedUsd: string;
  readonly usageUsd: string;
  readonly varianceUsd: string;
  readonly isWithinTolerance: boolean;
}

/** The marts' half of the page. */
export interface MartsFacts {
  /** Per day, the last {@link REPORT_DAYS} days the marts hold, oldest first. */
  readonly calls: readonly CallsDay[];
  /** The same days per account. */
  readonly costByAccount: readonly AccountCostDay[];
  readonly sentiment: readonly SentimentDay[];
  readonly funnel: readonly CampaignFunnel[];
  readonly invoices: readonly InvoiceVariance[];
}

/** The marts of {@link REPORT_MARTS} that are not built. */
export async function missingMarts(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = ${MARTS_SCHEMA} AND table_name IN (${sql.join([...REPORT_MARTS])})`.execute(db);
  const built = new Set(rows.map((row) => row.name));
  return REPORT_MARTS.filter((name) => !built.has(name));
}

/** Reads the marts' figures, or null when one of the marts is not built yet. */
export async function readMartsFacts(db: Kysely<Database>): Promise<MartsFacts | null> {
  if ((await missingMarts(db)).length > 0) return null;
  const calls = await sql<CallsDay>`
    WITH last_day AS (SELECT max(call_date) AS day FROM analytics_marts.rpt_call_kpis_daily)
    SELECT to_char(call_date, 'YYYY-MM-DD') AS day,
           sum(root_call_attempts)::int AS calls, sum(answered_calls)::int AS answered,
           round(100 * sum(answered_calls)::numeric / nullif(sum(root_call_attempts), 0), 1)::text AS "asrPct",
           round(sum(cost_usd), 2)::text AS "costUsd"
    FROM analytics_marts.rpt_call_kpis_daily, last_day
    WHERE call_date > last_day.day - ${REPORT_DAYS}::int
    GROUP BY call_date ORDER BY call_date`.execute(db);
  const costByAccount = await sql<AccountCostDay>`
    WITH last_day AS (SELECT max(call_date) AS day FROM analytics_marts.rpt_call_kpis_daily)
    SELECT to_char(call_date, 'YYYY-MM-DD') AS day, account, round(sum(cost_usd), 2)::text AS "costUsd"
    FROM analytics_marts.rpt_call_kpis_daily, last_day
    WHERE call_date > last_day.day - ${REPORT_DAYS}::int
    GROUP BY call_date, account ORDER BY call_date, account`.execute(db);
  const sentiment = await sql<SentimentDay>`
    WITH last_day AS (SELECT max(call_date) AS day FROM analytics_marts.rpt_sentiment_daily)
    SELECT to_char(call_date, 'YYYY-MM-DD') AS day, sum(scored_calls)::int AS "scoredCalls",
           round(sum(score_sum)::numeric / nullif(sum(scored_calls), 0), 2)::text AS "averageScore",
           sum(negative_calls)::int AS "negativeCalls"
    FROM analytics_marts.rpt_sentiment_daily, last_day
    WHERE call_date > last_day.day - ${REPORT_DAYS}::int
    GROUP BY call_date ORDER BY call_date`.execute(db);
  const funnel = await sql<CampaignFunnel>`
    SELECT account, campaign, messages_sent::int AS sent, messages_delivered::int AS delivered,
           unique_clickers::int AS "uniqueClickers", converted_clickers::int AS "convertedClickers"
    FROM analytics_marts.rpt_campaign_totals ORDER BY messages_sent DESC, account, campaign`.execute(db);
  const invoices = await sql<InvoiceVariance>`
    SELECT account, invoice_id::text AS "invoiceId",
           to_char(period_start_date, 'YYYY-MM-DD') AS "periodStart",
           to_char(period_end_date, 'YYYY-MM-DD') AS "periodEnd",
           round(invoiced_usd, 2)::text AS "invoicedUsd", round(usage_usd, 2)::text AS "usageUsd",
           round(variance_usd, 2)::text AS "varianceUsd", is_within_tolerance AS "isWithinTolerance"
    FROM analytics_marts.fct_invoices_reconciled WHERE product = 'invoice_total'
    ORDER BY period_start_date, account, invoice_id`.execute(db);
  return {
    calls: calls.rows,
    costByAccount: costByAccount.rows,
    sentiment: sentiment.rows,
    funnel: funnel.rows,
    invoices: invoices.rows,
  };
}
