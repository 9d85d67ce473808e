import { sql } from "kysely";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMartsOf } from "./marts-build.js";
import { runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 16, number inventory history: the numbers and invoices of a sandbox world are loaded and
 * built (the dbt snapshot snap_numbers takes its first versions), and each invoice's number_fees
 * equal what this file computes from the sandbox's truth: one monthly fee per number added before
 * the period ends. Then a number leaves the account's list (the sandbox never releases numbers, so
 * the landing table loses its row the way the next replace_all load of a shorter list would) and
 * the marts are built again: the snapshot closes the number's version, today's numbers no longer
 * have it, and the past invoice still bills it — its fees are that month's numbers, not today's.
 */
const ACCOUNT = "master";
it.override({
  sandboxOptions: {
    seed: 29,
    start: "2026-07-01",
    days: 40,
    accounts: 1,
    callsPerDay: 20,
    now: "2026-08-10T06:00:00Z",
  },
});

/** Micro-dollars of a decimal string. */
const micros = (value: unknown): number =>
  value === null || value === undefined ? 0 : Math.round(Number(value) * 1e6);

async function numberFees(warehouse: Warehouse): Promise<Map<number, number>> {
  const found = await sql<{ invoice_id: number; usd: string }>`
    SELECT invoice_id::int8::float8 AS invoice_id, usage_usd::text AS usd
    FROM analytics_marts.fct_invoices_reconciled
    WHERE account = ${ACCOUNT} AND product = 'number_fees'`.execute(warehouse.db);
  return new Map(found.rows.map((r) => [Number(r.invoice_id), micros(r.usd)]));
}

describe("number fees against the sandbox's truth, with inventory history", () => {
  it("a past invoice bills the numbers owned in its period, also after one has left the list", {
    timeout: 300_000,
  }, async ({ sandbox, database }) => {
    const base = sandboxConfig(sandbox);
    const streams = ["numbers", "invoices"];
    const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams })) };
    const run = await runAt(database.warehouse, config, sandbox, { command: "run" });
    expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
    await buildMartsOf(database.url, streams);

    const numbers = await truthRecords(sandbox, "numbers", ACCOUNT);
    const invoices = await truthRecords(sandbox, "invoices", ACCOUNT);
    expect(invoices.length).toBeGreaterThan(0);
    const periodEndMs = (invoice: Record<string, unknown>) =>
      Date.parse(`${String(invoice.to_date)}T00:00:00Z`) + 86_400_000;
    const expected = new Map(
      invoices.map((invoice) => [
        Number(invoice.id),
        numbers
          .filter((n) => Date.parse(String(n.added)) < periodEndMs(invoice))
          .reduce((sum, n) => sum + micros(n.monthly_fee), 0),
      ]),
    );
    expect([...expected.values()].every((fees) => fees > 0)).toBe(true);
    expect(await numberFees(database.warehouse)).toEqual(expected);

    // The earliest number leaves the list; the next build closes its version.
    const byAdded = [...numbers].sort((a, b) => Date.parse(String(a.added)) - Date.parse(String(b.added)));
    const released = byAdded[0]!;
    await sql`DELETE FROM platform.numbers WHERE _account = ${ACCOUNT} AND id = ${Number(released.id)}`.execute(
      database.warehouse.db,
    );
    await buildMartsOf(database.url, streams);

    const versions = await sql<{ closed: boolean }>`
      SELECT dbt_valid_to IS NOT NULL AS closed FROM analytics_snapshots.snap_numbers
      WHERE _account = ${ACCOUNT} AND id = ${Number(released.id)}`.execute(database.warehouse.db);
    expect(versions.rows).toEqual([{ closed: true }]);
    const today = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM analytics_marts.dim_numbers
      WHERE account = ${ACCOUNT} AND phone_number = ${String(released.number)}`.execute(
      database.warehouse.db,
    );
    expect(today.rows[0]?.n).toBe(0);
    // Still billed for the past periods it was owned in: the fees are unchanged.
    expect(await numberFees(database.warehouse)).toEqual(expected);
    console.info(
      `number fees: ${invoices.length} invoice(s), ${numbers.length} numbers; ` +
        `${released.number} (${String(released.monthly_fee)} USD/month) released and still billed for past periods`,
    );
  });
});
