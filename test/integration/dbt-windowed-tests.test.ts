import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { pino } from "pino";
import { onTestFinished } from "vitest";
import { buildAndPublishMarts } from "../../src/transform/build-marts.js";
import { runDbt, WITHOUT_UNIT_TESTS } from "../../src/transform/run-dbt.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts, loadMartStreamsAt } from "./marts-build.js";

/**
 * Issue 17, a nightly flat in the history: the tests that read every landed row or every click of a
 * campaign's life read, after a nightly build, only what that build re-read. The staging tests of
 * messages and clicks check the landed rows of their fact's settle window (where config
 * `__window_of:<fact>:<column>__`, macro get_where_subquery), every row on a `--full-refresh`; the
 * campaign reports' test compares the whole-life totals of the campaigns the nightly re-built,
 * counting their clickers from the settled state plus the clicks after it; the tests of
 * fct_link_clicks read the clicks of its latest build (`__latest_build__`). Each is shown to fail
 * on a broken row it must see, and the staging test to pass over a broken row older than the
 * window that the full refresh still catches.
 */
it.override({
  sandboxOptions: {
    seed: 43,
    start: "2026-07-16",
    days: 32,
    accounts: 1,
    callsPerDay: 40,
    now: "2026-08-16T12:00:00Z",
  },
});

const MESSAGES_TEST = "column_rules_stg_platform__messages";

/**
 * `dbt build <args>` as `transform` runs it, in `workDir`: whether dbt passed, and its output's
 * last lines. One work folder across builds, as `transform` keeps one per warehouse: dbt's partial
 * parse reuses the manifest an earlier build (a `--full-refresh`, say) parsed.
 */
async function build(
  warehouse: Warehouse,
  workDir: string,
  args: string[],
): Promise<{ ok: boolean; tail: string }> {
  const { dbt } = await buildAndPublishMarts(warehouse, {
    log: pino({ level: "silent" }),
    workDir,
    args: ["build", ...args, ...WITHOUT_UNIT_TESTS],
  });
  return { ok: dbt.ok, tail: dbt.tail.join("\n") };
}

/** `dbt test --select <tests>` (names separated by spaces) on the published marts (in place): whether it passed. */
async function testInPlace(databaseUrl: string, test: string): Promise<{ ok: boolean; tail: string }> {
  const workDir = await mkdtemp(path.join(tmpdir(), "windowed-tests-"));
  try {
    const dbt = await runDbt({
      databaseUrl,
      log: pino({ level: "silent" }),
      workDir,
      args: ["test", "--select", ...test.split(" ")],
    });
    return { ok: dbt.ok, tail: dbt.tail.join("\n") };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Gives one landed message of `day` a status the platform does not send; returns its id. */
async function breakMessageOf(warehouse: Warehouse, day: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    UPDATE platform.messages SET status = 'not-a-status'
    WHERE (_account, message_id) = (
      SELECT _account, message_id FROM platform.messages
      WHERE submitted_at >= ${`${day}T00:00:00Z`}::timestamptz
        AND submitted_at < ${`${day}T00:00:00Z`}::timestamptz + interval '1 day'
      ORDER BY message_id LIMIT 1)
    RETURNING message_id AS id`.execute(warehouse.db);
  expect(rows).toHaveLength(1);
  return rows[0]!.id;
}

describe("tests bounded to what a nightly re-built", () => {
  it("staging tests check their fact's window, every row on a full refresh; the campaign test catches a live campaign's clickers", {
    timeout: 600_000,
  }, async ({ sandbox, database }) => {
    const warehouse = database.warehouse;
    const workDir = await mkdtemp(path.join(tmpdir(), "windowed-tests-"));
    // A folder whose first parse is a --full-refresh's: the nightly after it reuses that manifest.
    const refreshDir = await mkdtemp(path.join(tmpdir(), "windowed-tests-refresh-"));
    onTestFinished(async () => {
      for (const dir of [workDir, refreshDir]) await rm(dir, { recursive: true, force: true });
    });
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-10T12:00:00Z");
    await buildMarts(warehouse, ["--full-refresh"]);
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-12T12:00:00Z");
    await buildMarts(warehouse, []);

    // A broken message of July 20, long settled: outside every window a nightly re-reads.
    const old = await breakMessageOf(warehouse, "2026-07-20");
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-14T12:00:00Z");
    const nightly = await build(warehouse, workDir, []);
    expect(nightly.ok, nightly.tail).toBe(true);

    // One in the window (the day before the clock) fails the nightly, naming the test.
    const recent = await breakMessageOf(warehouse, "2026-08-13");
    const failing = await build(warehouse, workDir, []);
    expect(failing.ok).toBe(false);
    expect(failing.tail).toContain(MESSAGES_TEST);
    await sql`UPDATE platform.messages SET status = 'delivered' WHERE message_id = ${recent}`.execute(
      warehouse.db,
    );

    // A full refresh reads every landed row: the old one fails it.
    const full = await build(warehouse, refreshDir, ["--full-refresh"]);
    expect(full.ok).toBe(false);
    expect(full.tail).toContain(MESSAGES_TEST);
    await sql`UPDATE platform.messages SET status = 'delivered' WHERE message_id = ${old}`.execute(
      warehouse.db,
    );
    const refreshed = await build(warehouse, refreshDir, ["--full-refresh"]);
    expect(refreshed.ok, refreshed.tail).toBe(true);
    // The nightly after full refreshes in the same work folder: dbt's partial parse reuses the
    // manifest a --full-refresh parsed, whose tests saw only their full-refresh branches.
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-16T12:00:00Z");
    const afterRefresh = await build(warehouse, refreshDir, []);
    expect(afterRefresh.ok, afterRefresh.tail).toBe(true);

    // The clicks' tests read the rows of the fact's latest build: a click written by an earlier
    // build (the full refresh) with a rule no build writes passes them; one of the latest build fails.
    const clickWithRule = async (latest: boolean) => {
      const found = await sql<{ n: number }>`
        UPDATE analytics_marts.fct_link_clicks SET callback_attribution_rule = 'not-a-rule'
        WHERE (account, click_date, click_ordinal) = (
          SELECT account, click_date, click_ordinal FROM analytics_marts.fct_link_clicks
          WHERE (built_at = (SELECT max(built_at) FROM analytics_marts.fct_link_clicks)) = ${latest}
          ORDER BY click_date, click_ordinal LIMIT 1)
        RETURNING 1 AS n`.execute(warehouse.db);
      expect(found.rows).toHaveLength(1);
    };
    await clickWithRule(false);
    // The campaign test after that nightly: passes, and fails on a live campaign's clickers.
    const passing = await testInPlace(
      database.url,
      "campaign_reports_match_facts column_rules_fct_link_clicks",
    );
    expect(passing.ok, passing.tail).toBe(true);
    await clickWithRule(true);
    const { rows } = await sql<{ campaign: string }>`
      UPDATE analytics_marts.rpt_campaign_totals SET unique_clickers = unique_clickers + 1
      WHERE campaign = (SELECT min(campaign) FROM analytics_marts.rpt_campaign_totals WHERE unique_clickers > 0)
      RETURNING campaign`.execute(warehouse.db);
    expect(rows).toHaveLength(1);
    const broken = await testInPlace(
      database.url,
      "campaign_reports_match_facts column_rules_fct_link_clicks",
    );
    expect(broken.ok).toBe(false);
    expect(broken.tail).toMatch(/campaign_reports_match_facts/);
    expect(broken.tail).toMatch(/column_rules_fct_link_clicks/);
  });
});
