import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";

// The demo command end to end on a real Postgres: sandbox → nightly run → dbt build → marts, and
// the marts agree with the sandbox's ground truth. A second sandbox with the same seed and options
// is byte-identical, so it serves the truth of the world the demo loaded.
const options = { seed: 7, days: 35, callsPerDay: 60, accounts: 2 } as const;

async function truth(
  sandbox: RunningSandbox,
  stream: string,
  account: string,
): Promise<Record<string, unknown>[]> {
  const url = `${sandbox.url}/_sandbox/truth/${stream}?account=${account}&from=${sandbox.world.start}&to=2026-12-31`;
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.text())
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

// The demo migrates the database itself.
it.override({ sandboxOptions: { port: 0, ...options }, databaseOptions: { migrate: false } });

describe("demo + dbt build", () => {
  // As long as the demo it runs may take (its timeoutMs): the default 120 s is too short on a busy 2-core machine.
  it("loads the sandbox, builds every mart with its tests passing, and the marts match the truth", {
    timeout: 300_000,
  }, async ({ database, sandbox }) => {
    const result = await runCli(
      [
        "demo",
        "--seed",
        String(options.seed),
        "--days",
        String(options.days),
        "--calls-per-day",
        String(options.callsPerDay),
        "--accounts",
        String(options.accounts),
      ],
      { env: { DATABASE_URL: database.url }, timeoutMs: 300_000 },
    );
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    expect(result.stdout).toMatch(/dbt build: PASS=\d+ WARN=0 ERROR=0 SKIP=0/);

    const db = database.warehouse.db;
    for (const account of sandbox.world.accounts.map((a) => a.name)) {
      const cdrs = await truth(sandbox, "cdrs", account);
      const cents = (value: unknown) => Math.round(Number(value ?? 0) * 10_000);
      const expectedCalls = cdrs.length;
      const expectedCost = cdrs.reduce((sum, row) => sum + cents(row.charge) + cents(row.forward_fee), 0);
      const mart = await sql<{ legs: number; cost: string }>`
        SELECT sum(legs)::int AS legs, coalesce(sum(total_cost_usd), 0)::text AS cost
        FROM analytics_marts.rpt_call_cost_daily WHERE account = ${account}`.execute(db);
      expect(mart.rows[0]?.legs, account).toBe(expectedCalls);
      expect(cents(mart.rows[0]?.cost), account).toBe(expectedCost);

      const invoices = await truth(sandbox, "invoices", account);
      expect(invoices.length, account).toBeGreaterThan(0);
      const reconciled = await sql<{ invoice_id: number; invoiced_usd: string }>`
        SELECT invoice_id, invoiced_usd::text FROM analytics_marts.fct_invoices_reconciled
        WHERE account = ${account} AND product = 'invoice_total' ORDER BY invoice_id`.execute(db);
      expect(reconciled.rows.map((r) => [Number(r.invoice_id), cents(r.invoiced_usd)])).toEqual(
        invoices.map((i) => [Number(i.id), cents(i.amount)]).sort((a, b) => Number(a[0]) - Number(b[0])),
      );

      const clicks = await truth(sandbox, "short_link_metrics", account);
      const mart2 = await sql<{ clicks: number }>`
        SELECT coalesce(sum(clicks), 0)::int AS clicks FROM analytics_marts.rpt_campaign_daily
        WHERE account = ${account}`.execute(db);
      expect(mart2.rows[0]?.clicks, account).toBe(clicks.length);
    }
  });
});
