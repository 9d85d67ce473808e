import { sql } from "kysely";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts, loadMartStreamsAt, relationsPlanned } from "./marts-build.js";

/**
 * Issue 17, a nightly flat in the history: the whole-life campaign reports (rpt_campaign_totals,
 * rpt_campaign_click_mix, rpt_campaign_opt_outs' messages per sender) are built from state of the
 * settled days (int_campaign_phones_settled, int_campaign_click_values_settled,
 * int_campaign_senders_settled), folded forward night by night,
 * plus the facts from the state's boundary on. Nights of a world across July and August: a full
 * refresh, a nightly that copies the published marts, two more that continue from the kept ones
 * (two loads behind: each folds the days of both). Oracles: the whole-life counts computed here
 * straight from the facts (every message and click, as the reports were before the state), and a
 * --full-refresh of the same data (the state and reports a night-by-night fold leaves must be what
 * one fold of every settled day builds). The last nightly's select of the totals reads August's
 * partitions of the facts only: the settled July is read from the state.
 */
it.override({
  sandboxOptions: {
    seed: 37,
    start: "2026-07-16",
    days: 32,
    accounts: 1,
    callsPerDay: 40,
    now: "2026-08-16T12:00:00Z",
  },
});

const MARTS = "analytics_marts";
/**
 * The clicks (their callbacks and first conversions depend on clicks of days before a nightly's
 * window), the campaign state and the reports built from it, each with the key it is read in order of.
 */
const CAMPAIGN_MARTS: Readonly<Record<string, string>> = {
  fct_link_clicks: "account, click_date, click_ordinal",
  int_campaign_phones_settled: "account, campaign, phone",
  int_campaign_click_values_settled: "account, campaign, phone, dimension, value",
  int_campaign_click_mix_settled: "account, campaign, dimension, value",
  int_campaign_senders_settled: "account, campaign, sender",
  rpt_campaign_totals: "account, campaign",
  rpt_campaign_click_mix: "account, campaign, dimension, value",
  rpt_campaign_opt_outs: "account, campaign, sender",
};

/**
 * Every row of the campaign state and reports as text, in key order; without a state row's
 * settled_before and first_settled_before (the folds that last and first wrote it; the state's
 * boundary is compared apart) and a fact's built_at (the build that wrote the row).
 */
async function readCampaignMarts(warehouse: Warehouse): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [mart, key] of Object.entries(CAMPAIGN_MARTS)) {
    const { rows } = await sql<{ line: string }>`
      SELECT (to_jsonb(m) - 'settled_before' - 'first_settled_before' - 'built_at')::text AS line FROM ${sql.table(`${MARTS}.${mart}`)} AS m
      ORDER BY ${sql.raw(key)}`.execute(warehouse.db);
    out[mart] = rows.map((r) => r.line);
  }
  return out;
}

/** The boundary the campaign state was folded up to. */
async function settledBefore(warehouse: Warehouse): Promise<string | null> {
  const { rows } = await sql<{ day: string | null }>`
    SELECT max(settled_before)::text AS day FROM analytics_marts.int_campaign_phones_settled`.execute(
    warehouse.db,
  );
  return rows[0]!.day;
}

/**
 * Where the state must be folded to: the latest day of both campaign facts − settle_days (3) − the
 * attribution window (7 days) − 1.
 */
async function expectedBoundary(warehouse: Warehouse): Promise<string> {
  const { rows } = await sql<{ day: string }>`
    SELECT (least((SELECT max(submitted_date) FROM analytics_marts.fct_campaign_messages),
                  (SELECT max(click_date) FROM analytics_marts.fct_link_clicks)) - 11)::text AS day`.execute(
    warehouse.db,
  );
  return rows[0]!.day;
}

/**
 * Whole-life campaign counts straight from every fact row, and the same columns of
 * rpt_campaign_totals and rpt_campaign_click_mix.
 */
async function totalsFromFactsAndReport(
  warehouse: Warehouse,
): Promise<{ facts: string[]; report: string[] }> {
  const facts = await sql<{ line: string }>`
    WITH messages AS (
      SELECT account, campaign, count(*) AS sent, count(*) FILTER (WHERE is_delivered) AS delivered,
             count(DISTINCT recipient_phone) FILTER (WHERE is_delivered) AS recipients,
             coalesce(sum(cost_usd), 0) AS cost
      FROM analytics_marts.fct_campaign_messages GROUP BY 1, 2),
    clicks AS (
      SELECT account, campaign, count(*) AS clicks, count(DISTINCT clicker_phone) AS clickers,
             count(*) FILTER (WHERE is_first_conversion) AS converted, sum(callbacks) AS callbacks,
             count(DISTINCT attributed_message_id) FILTER (WHERE is_attributed) AS clicked
      FROM analytics_marts.fct_link_clicks GROUP BY 1, 2)
    SELECT concat_ws(' ', account, campaign, coalesce(sent, 0), coalesce(delivered, 0), coalesce(recipients, 0),
                     coalesce(cost, 0), coalesce(clicks, 0), coalesce(clickers, 0), coalesce(converted, 0),
                     coalesce(clicked, 0), coalesce(callbacks, 0)) AS line
    FROM messages FULL JOIN clicks USING (account, campaign) ORDER BY account, campaign`.execute(
    warehouse.db,
  );
  const report = await sql<{ line: string }>`
    SELECT concat_ws(' ', account, campaign, messages_sent, messages_delivered, delivered_recipients, cost_usd,
                     clicks, unique_clickers, converted_clickers, clicked_messages, callbacks) AS line
    FROM analytics_marts.rpt_campaign_totals ORDER BY account, campaign`.execute(warehouse.db);
  // The click mix: clicks and distinct clickers per operating system, browser and language.
  const mixFacts = await sql<{ line: string }>`
    SELECT concat_ws(' ', account, campaign, dimension, coalesce(value, '(none)'), count(*), count(DISTINCT clicker_phone)) AS line
    FROM analytics_marts.fct_link_clicks,
         LATERAL (VALUES ('operating_system', operating_system), ('browser', browser), ('language', language))
           AS v(dimension, value)
    GROUP BY account, campaign, dimension, value ORDER BY account, campaign, dimension, value`.execute(
    warehouse.db,
  );
  const mixReport = await sql<{ line: string }>`
    SELECT concat_ws(' ', account, campaign, dimension, coalesce(value, '(none)'), clicks, unique_clickers) AS line
    FROM analytics_marts.rpt_campaign_click_mix ORDER BY account, campaign, dimension, value`.execute(
    warehouse.db,
  );
  // The opt-outs report's campaign messages per sender (its rows with messages).
  const senderFacts = await sql<{ line: string }>`
    SELECT concat_ws(' ', account, campaign, coalesce(sender, '(none)'), count(*), count(*) FILTER (WHERE is_delivered)) AS line
    FROM analytics_marts.fct_campaign_messages
    GROUP BY account, campaign, sender ORDER BY account, campaign, sender`.execute(warehouse.db);
  const senderReport = await sql<{ line: string }>`
    SELECT concat_ws(' ', account, campaign, coalesce(sender, '(none)'), messages_sent, messages_delivered) AS line
    FROM analytics_marts.rpt_campaign_opt_outs WHERE messages_sent > 0
    ORDER BY account, campaign, sender`.execute(warehouse.db);
  // Every landed opt-out once, credited to the latest campaign message to its number (from its
  // sender, or any when it opted out of all) at most 168 h before it, else to no campaign.
  const optOutFacts = await sql<{ line: string }>`
    WITH credited AS (
      SELECT o._account AS account, o.sender_id, m.campaign, coalesce(m.sender, o.sender_id) AS sender
      FROM platform.message_opt_outs AS o
      LEFT JOIN LATERAL (
        SELECT campaign, sender FROM analytics_marts.fct_campaign_messages AS f
        WHERE f.account = o._account AND f.recipient_phone = regexp_replace(o.phone_number, '[^0-9]', '', 'g')
          AND (o.sender_id IS NULL OR f.sender = o.sender_id)
          AND f.submitted_at <= o.created_at AND f.submitted_at > o.created_at - interval '168 hours'
        ORDER BY f.submitted_at DESC, f.message_id DESC LIMIT 1) AS m ON true)
    SELECT concat_ws(' ', account, coalesce(campaign, '(none)'), coalesce(sender, '(none)'), 'opt-outs',
                     count(*), count(*) FILTER (WHERE sender_id IS NULL)) AS line
    FROM credited GROUP BY account, campaign, sender ORDER BY account, campaign, sender`.execute(
    warehouse.db,
  );
  const optOutReport = await sql<{ line: string }>`
    SELECT concat_ws(' ', account, coalesce(campaign, '(none)'), coalesce(sender, '(none)'), 'opt-outs',
                     opt_outs, all_sender_opt_outs) AS line
    FROM analytics_marts.rpt_campaign_opt_outs WHERE opt_outs > 0 ORDER BY account, campaign, sender`.execute(
    warehouse.db,
  );
  return {
    facts: [...facts.rows, ...mixFacts.rows, ...senderFacts.rows, ...optOutFacts.rows].map((r) => r.line),
    report: [...report.rows, ...mixReport.rows, ...senderReport.rows, ...optOutReport.rows].map(
      (r) => r.line,
    ),
  };
}

/**
 * Lands an opt-out (as the loader stores one) 30 minutes into the state's boundary day, from the
 * recipient of the latest delivered campaign message of the day before, of that message's sender.
 */
async function optOutAcrossBoundary(warehouse: Warehouse): Promise<void> {
  const { rows } = await sql<{ n: number }>`
    INSERT INTO platform.message_opt_outs
      (_account, created_date, phone_number, sender_id, campaign_id, created_at, _row_ordinal, _run_id, _extracted_at)
    SELECT m.account, b.day, m.to_number, m.sender, NULL, b.day + interval '30 minutes',
           coalesce((SELECT max(_row_ordinal) FROM platform.message_opt_outs
                     WHERE _account = m.account AND created_date = b.day), 0) + 1,
           (SELECT max(_run_id) FROM platform.message_opt_outs), now()
    FROM (SELECT max(settled_before) AS day FROM analytics_marts.int_campaign_phones_settled) AS b
    CROSS JOIN LATERAL (
      SELECT account, to_number, sender FROM analytics_marts.fct_campaign_messages
      WHERE submitted_date = b.day - 1 AND is_delivered ORDER BY submitted_at DESC LIMIT 1) AS m
    RETURNING 1 AS n`.execute(warehouse.db);
  expect(rows).toHaveLength(1);
}

describe("campaign reports from settled state", () => {
  it("fold the settled days night by night into what one fold of every settled day builds, equal to the facts' whole-life counts", {
    timeout: 600_000,
  }, async ({ sandbox, database }) => {
    const warehouse = database.warehouse;
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-02T12:00:00Z");
    await buildMarts(warehouse, ["--full-refresh"]);
    const firstBoundary = await expectedBoundary(warehouse);
    expect(firstBoundary > "2026-07-16").toBe(true);
    expect(await settledBefore(warehouse)).toBe(firstBoundary);
    const first = await totalsFromFactsAndReport(warehouse);
    expect(first.report).toEqual(first.facts);

    // The per-phone click state as a build before first_settled_before left it (keyed by
    // account × campaign, no grain_key): the nightly folds it again from every settled day.
    await sql`ALTER TABLE analytics_marts.int_campaign_click_values_settled
                DROP COLUMN first_settled_before, DROP COLUMN grain_key`.execute(warehouse.db);
    await sql`DROP TABLE analytics_marts.int_campaign_click_mix_settled`.execute(warehouse.db);
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-07T12:00:00Z");
    await buildMarts(warehouse, []);
    const secondBoundary = await expectedBoundary(warehouse);
    expect(secondBoundary > firstBoundary).toBe(true);
    expect(await settledBefore(warehouse)).toBe(secondBoundary);
    const copied = await totalsFromFactsAndReport(warehouse);
    expect(copied.report).toEqual(copied.facts);

    // Continues from the full refresh's state, two loads behind: folds the days of both.
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-12T12:00:00Z");
    await buildMarts(warehouse, []);
    expect(await settledBefore(warehouse)).toBe(await expectedBoundary(warehouse));
    const caughtUp = await totalsFromFactsAndReport(warehouse);
    expect(caughtUp.report).toEqual(caughtUp.facts);

    // The settled click counts continue from the published table (a newer fold than the kept
    // per-phone state the build continues from): they must still count each clicker once.
    await sql`DROP TABLE analytics_marts__previous.int_campaign_click_mix_settled`.execute(warehouse.db);
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-16T12:00:00Z");
    await buildMarts(warehouse, [], async ({ compiledSelect }) => {
      // The boundary and the totals' own window (from the kept report, built August 7) are in
      // August: the select reads the July of the facts from the state, not from their partitions.
      const totals = await compiledSelect("rpt_campaign_totals");
      const planned = await relationsPlanned(
        warehouse.db,
        totals.replaceAll('"analytics_marts__build"', `"${MARTS}"`),
      );
      expect(planned.filter((name) => /^fct_(campaign_messages|link_clicks)_p/.test(name))).toEqual([
        "fct_campaign_messages_p2026_08",
        "fct_link_clicks_p2026_08",
      ]);
      expect(planned).toContain("int_campaign_phones_settled");
      const mix = await compiledSelect("rpt_campaign_click_mix");
      const mixPlanned = await relationsPlanned(
        warehouse.db,
        mix.replaceAll('"analytics_marts__build"', `"${MARTS}"`),
      );
      expect(mixPlanned.filter((name) => name.startsWith("fct_link_clicks_p"))).toEqual([
        "fct_link_clicks_p2026_08",
      ]);
      // The opt-outs report reads the settled days from the state (its attribution of the recent
      // opt-outs reads the messages of the window before the boundary too: July is still planned).
      const optOuts = await compiledSelect("rpt_campaign_opt_outs");
      const optOutsPlanned = await relationsPlanned(
        warehouse.db,
        optOuts.replaceAll('"analytics_marts__build"', `"${MARTS}"`),
      );
      expect(optOutsPlanned).toContain("int_campaign_senders_settled");
    });
    expect(await settledBefore(warehouse)).toBe(await expectedBoundary(warehouse));
    expect((await settledBefore(warehouse))! >= "2026-08-01").toBe(true);
    // An opt-out just after the boundary from the recipient of a message just before it: the
    // report's recent days must still credit it to that message's campaign.
    await optOutAcrossBoundary(warehouse);
    await buildMarts(warehouse, []);
    const nightly = await readCampaignMarts(warehouse);
    const counts = await totalsFromFactsAndReport(warehouse);
    expect(counts.report).toEqual(counts.facts);
    expect(counts.facts.length).toBeGreaterThan(1);
    expect(nightly.int_campaign_phones_settled!.length).toBeGreaterThan(0);
    expect(nightly.int_campaign_click_values_settled!.length).toBeGreaterThan(0);
    expect(nightly.int_campaign_senders_settled!.length).toBeGreaterThan(0);
    // Opt-outs were folded into the state (the world has some in its settled days).
    const { rows: settledOptOuts } = await sql<{ n: number }>`
      SELECT coalesce(sum(opt_outs), 0)::int AS n FROM analytics_marts.int_campaign_senders_settled`.execute(
      warehouse.db,
    );
    expect(settledOptOuts[0]!.n).toBeGreaterThan(0);
    // A fold re-writes the rows its clicks touch only: some rows were last written by an earlier one.
    const { rows: folds } = await sql<{ older: number }>`
      SELECT count(*) FILTER (WHERE settled_before < (SELECT max(settled_before) FROM analytics_marts.int_campaign_click_values_settled))::int AS older
      FROM analytics_marts.int_campaign_click_values_settled`.execute(warehouse.db);
    expect(folds[0]!.older).toBeGreaterThan(0);

    await buildMarts(warehouse, ["--full-refresh"]);
    const full = await readCampaignMarts(warehouse);
    for (const mart of Object.keys(CAMPAIGN_MARTS)) expect(nightly[mart], mart).toEqual(full[mart]);
  });
});
