import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import type { EtlConfig } from "../../src/config/config.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { startFaultProxy } from "./fault-proxy.js";
import {
  completedLabels,
  expectedRows,
  loadedRows,
  runAt,
  sandboxConfig,
  swapFaults,
  truthRecords,
} from "./pipeline-harness.js";

/**
 * Issue "nothing lost, second round", items 2–5: a read that looks wrong (a valid answer far
 * smaller than what the warehouse holds, a settled window re-read with every row rejected, a
 * renamed field that keeps rows valid, charges gone) is held: nothing of the window changes, the
 * window is opened again and re-read by every run until it loads cleanly, the run exits 1 with one
 * line; once the platform is right again the warehouse equals the truth.
 */
const START = "2026-08-01";
const NOW = "2026-08-07T00:00:00Z";
const SANDBOX = { seed: 41, start: START, days: 6, accounts: 1, callsPerDay: 400, now: NOW } as const;
const SETTLED_BEFORE = ["2026-08-01..2026-08-02", "2026-08-02..2026-08-03", "2026-08-03..2026-08-04"];

/** A config reading `streams` of the world's one account, settling after 24 h, re-reading 3 days. */
function configOf(sandbox: RunningSandbox, streams: readonly string[], baseUrl?: string): EtlConfig {
  const config = sandboxConfig(sandbox, {
    settleHours: 24,
    lookbackDays: 3,
    ...(baseUrl ? { baseUrl } : {}),
  });
  return { ...config, accounts: config.accounts.map((a) => ({ ...a, streams: [...streams] })) };
}

async function heldSlices(warehouse: Warehouse, stream: string) {
  const rows = await sql<{ slice: string; hold_reason: string; error: string }>`
    SELECT slice, hold_reason, error FROM etl.run_slices
    WHERE stream = ${stream} AND status = 'held' ORDER BY id`.execute(warehouse.db);
  return rows.rows;
}

const all = { from: START, to: "2026-08-07" };

describe("held reads never change the warehouse", () => {
  it("a settled window re-read with every row rejected keeps its clicks, opens again, and loads once fixed", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    const db = await createDatabase();
    const name = sandbox.world.accounts[0]!.name;
    const config = configOf(sandbox, ["short_link_metrics"]);
    expect((await runAt(db.warehouse, config, sandbox, { command: "run" })).exitCode).toBe(0);
    const truth = await expectedRows(sandbox, "short_link_metrics", name, all);
    expect(truth.length).toBeGreaterThan(20);
    expect(await loadedRows(db.warehouse, "short_link_metrics", name)).toEqual(truth);
    const settled = await completedLabels(db.warehouse, name, "short_link_metrics");
    expect(settled).toContain("2026-08-05..2026-08-06");

    // A renamed required field: every row of every re-read window is rejected.
    await swapFaults(sandbox, {
      base: "none",
      drift: [{ stream: "short_link_metrics", field: "link_hash", change: "rename", to: "hash" }],
    });
    const drifted = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(drifted.exitCode).toBe(1);
    const summary = drifted.streams.find((s) => s.stream === "short_link_metrics")!;
    expect(summary.windowsHeld).toBeGreaterThanOrEqual(2);
    expect(summary.deleted).toBe(0);
    // Nothing of the held windows changed; they are open again (the lookback's settled ones too).
    expect(await loadedRows(db.warehouse, "short_link_metrics", name)).toEqual(truth);
    expect(await completedLabels(db.warehouse, name, "short_link_metrics")).toEqual(SETTLED_BEFORE);
    const held = await heldSlices(db.warehouse, "short_link_metrics");
    expect(held.map((h) => h.slice)).toEqual(
      expect.arrayContaining(["2026-08-04..2026-08-05", "2026-08-05..2026-08-06"]),
    );
    expect(held.every((h) => h.hold_reason === "too_many_rejects")).toBe(true);
    // Their rejects are kept, so a replay could recover them.
    const rejects = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM etl.rejects WHERE stream = 'short_link_metrics' AND replayed_at IS NULL`.execute(
      db.warehouse.db,
    );
    expect(rejects.rows[0]!.n).toBeGreaterThan(0);

    // Fixed: the next run re-reads the open windows, loads them cleanly and settles them again.
    await swapFaults(sandbox, { profile: "none" });
    const fixed = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(fixed.exitCode).toBe(0);
    expect(await loadedRows(db.warehouse, "short_link_metrics", name)).toEqual(truth);
    expect(await completedLabels(db.warehouse, name, "short_link_metrics")).toEqual(settled);
  });

  it("a valid empty answer for a window, or for the owned numbers, is held until an operator accepts the shrink", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    const db = await createDatabase();
    const name = sandbox.world.accounts[0]!.name;
    const streams = ["short_link_metrics", "numbers"];
    expect(
      (await runAt(db.warehouse, configOf(sandbox, streams), sandbox, { command: "run" })).exitCode,
    ).toBe(0);
    const clicks = await loadedRows(db.warehouse, "short_link_metrics", name);
    const numbers = await loadedRows(db.warehouse, "numbers", name);
    expect(numbers.length).toBeGreaterThan(0);
    const day5 = await expectedRows(sandbox, "short_link_metrics", name, {
      from: "2026-08-05",
      to: "2026-08-05",
    });
    expect(day5.length).toBeGreaterThan(0);

    // The platform answers a valid, empty list for 2026-08-05's clicks and for the owned numbers.
    const pagination = { current_page: 1, per_page: 100, total: 0, total_pages: 0 };
    const proxy = await startFaultProxy(sandbox.url, (url) => {
      if (url.pathname === "/v1/short-links/metrics" && url.searchParams.get("from") === "2026-08-05")
        return { status: 200, body: { metrics: [], pagination } };
      if (url.pathname === "/v1/mydids")
        return { status: 200, body: { items: [], doc_types: [], pagination } };
      return undefined;
    });
    try {
      const config = configOf(sandbox, streams, proxy.url);
      const shrunk = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(shrunk.exitCode).toBe(1);
      expect(await loadedRows(db.warehouse, "short_link_metrics", name)).toEqual(clicks);
      expect(await loadedRows(db.warehouse, "numbers", name)).toEqual(numbers);
      const errors = shrunk.streams.flatMap((s) => s.errors);
      expect(errors).toContain(
        `account ${name}, stream short_link_metrics, window 2026-08-05..2026-08-06: the platform lists 0 rows where the warehouse holds ${day5.length} (100.0% fewer, more than max_shrink_share 0.5); held: the warehouse keeps its rows. If the platform really deleted them, run again with --accept-shrink ${name}/short_link_metrics/2026-08-05`,
      );
      expect(errors.some((e) => e.includes(`stream numbers, window (all): the platform lists 0 rows`))).toBe(
        true,
      );
      expect((await heldSlices(db.warehouse, "numbers")).map((h) => h.hold_reason)).toEqual(["shrink"]);

      // The operator confirms the clicks' deletion only: that window empties, the numbers stay held.
      const accepted = await runAt(db.warehouse, config, sandbox, {
        command: "run",
        accepted: {
          shrink: [{ account: name, stream: "short_link_metrics", windowStart: "2026-08-05" }],
          drift: [],
        },
      });
      expect(accepted.exitCode).toBe(1);
      expect(await loadedRows(db.warehouse, "short_link_metrics", name)).toEqual(
        clicks.filter((row) => !day5.includes(row)),
      );
      expect(await loadedRows(db.warehouse, "numbers", name)).toEqual(numbers);
    } finally {
      await proxy.close();
    }
  });

  it("a renamed optional field holds the window naming both fields; a null window column is a reject, never an undated row", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    const db = await createDatabase();
    const name = sandbox.world.accounts[0]!.name;
    const config = configOf(sandbox, ["cdrs"]);
    expect((await runAt(db.warehouse, config, sandbox, { command: "run" })).exitCode).toBe(0);
    const cdrs = await loadedRows(db.warehouse, "cdrs", name);
    const truth = await truthRecords(sandbox, "cdrs", name, { from: "2026-08-05", to: "2026-08-05" });
    // The oracle needs forwarded calls in the re-read windows, or the check proves nothing.
    expect(truth.filter((r) => r.forward_fee !== undefined).length).toBeGreaterThan(10);

    await swapFaults(sandbox, {
      base: "none",
      drift: [{ stream: "cdrs", field: "forward_fee", change: "rename", to: "fwd_fee" }],
    });
    const renamed = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(renamed.exitCode).toBe(1);
    const errors = renamed.streams.flatMap((s) => s.errors);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /window 2026-08-05\.\.2026-08-06: forward_fee missing \(null in all [\d,]+ rows, set in [\d.]+% before\), fwd_fee new: renamed\?/,
        ),
      ]),
    );
    expect((await heldSlices(db.warehouse, "cdrs")).every((h) => h.hold_reason === "drift")).toBe(true);
    expect(await loadedRows(db.warehouse, "cdrs", name)).toEqual(cdrs);

    // `date` sent as null: every row is a reject naming the column, the window is held, nothing lands undated.
    await swapFaults(sandbox, {
      base: "none",
      drift: [{ stream: "cdrs", field: "date", change: "nullify" }],
    });
    const undated = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(undated.exitCode).toBe(1);
    const issues = await sql<{ message: string }>`
      SELECT DISTINCT issues->0->>'message' AS message FROM etl.rejects
      WHERE stream = 'cdrs' AND replayed_at IS NULL`.execute(db.warehouse.db);
    expect(issues.rows.map((r) => r.message)).toEqual(["date is null: a window column must never be null"]);
    const undatedRows = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM platform.cdrs WHERE date IS NULL`.execute(db.warehouse.db);
    expect(undatedRows.rows[0]!.n).toBe(0);
    expect(await loadedRows(db.warehouse, "cdrs", name)).toEqual(cdrs);

    await swapFaults(sandbox, { profile: "none" });
    expect((await runAt(db.warehouse, config, sandbox, { command: "run" })).exitCode).toBe(0);
    expect(await loadedRows(db.warehouse, "cdrs", name)).toEqual(
      await expectedRows(sandbox, "cdrs", name, all),
    );
  });

  it("a window whose billable calls all lack a charge is held, not settled", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({ ...SANDBOX, faults: { base: "none", rows: { nullCharge: 1 } } });
    const db = await createDatabase();
    const name = sandbox.world.accounts[0]!.name;
    const config = configOf(sandbox, ["cdrs"]);
    const broken = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(broken.exitCode).toBe(1);
    const held = await heldSlices(db.warehouse, "cdrs");
    expect(held.length).toBeGreaterThanOrEqual(6);
    expect(held.every((h) => h.hold_reason === "missing_charges")).toBe(true);
    expect(held[0]!.error).toMatch(
      /: [\d,]+ of [\d,]+ billable calls \(100\.0%\) have no charge, more than max_missing_charge_share 0\.05; held/,
    );
    expect(await completedLabels(db.warehouse, name, "cdrs")).toEqual([]);
    expect(await loadedRows(db.warehouse, "cdrs", name)).toEqual([]);

    await swapFaults(sandbox, { profile: "none" });
    expect((await runAt(db.warehouse, config, sandbox, { command: "run" })).exitCode).toBe(0);
    expect(await loadedRows(db.warehouse, "cdrs", name)).toEqual(
      await expectedRows(sandbox, "cdrs", name, all),
    );
  });
});
