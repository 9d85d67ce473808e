import { sql } from "kysely";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
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
 * Issue "nothing lost", item 2: when the platform renames a field, every row of a window is
 * rejected. The window's rejects are kept, the window stays open, and the run exits 1 with one line
 * saying so; once the platform is fixed, the next run loads it, with no `state reset`.
 */
const NOW = "2026-08-05T00:00:00Z";
it.override({
  sandboxOptions: { seed: 31, start: "2026-08-01", days: 4, accounts: 1, callsPerDay: 200, now: NOW },
});

describe("a platform that renamed a field", () => {
  it("holds every window open with exit 1 and one line; once fixed, the next run equals the truth", async ({
    rig,
  }) => {
    const { sandbox, db } = rig;
    const account = sandbox.world.accounts[0]!;
    await swapFaults(sandbox, {
      base: "none",
      drift: [{ stream: "cdrs", field: "uuid", change: "rename", to: "call_uuid" }],
    });
    // The oracle: which rows the drift makes invalid, per day, from the sandbox.
    const malformed = await truthRecords(sandbox, "cdrs", account.name, {}, "/malformed");
    expect(malformed.length).toBeGreaterThan(500);
    expect(malformed.every((m) => m.kind === "drift" && m.rejected === true)).toBe(true);
    const perDay = new Map<string, number>();
    for (const m of malformed) {
      const day = String((m.raw as { date: string }).date).slice(0, 10);
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }

    const env = {
      TELECOM_API_URL: sandbox.url,
      TELECOM_API_KEY: account.apiKey,
      DATABASE_URL: db.url,
      TELECOM_ETL_START_DATE: "2026-08-01",
      TELECOM_ETL_NOW: NOW,
    };
    const drifted = await runCli(["run"], { env });
    expect(drifted.code, drifted.stderr.slice(-2000)).toBe(1);
    const first = `${(perDay.get("2026-08-01") ?? 0).toLocaleString("en-US")}`;
    expect(drifted.stdout).toContain(
      `account default, stream cdrs, window 2026-08-01..2026-08-02: ${first} of ${first} rows rejected: uuid: `,
    );
    expect(drifted.stdout).toContain("— has the platform changed its schema?");
    expect(drifted.stdout).toMatch(
      /default\/cdrs +failed +windows 5\/5 loaded \(0 settled, 0 failed, 4 held open\)/,
    );
    expect(drifted.stdout).toMatch(/default\/short_link_metrics +succeeded/);
    // The held windows' rejects are all kept, and none of the windows is complete.
    const rejects = await sql<{ slice: string; n: number }>`
      SELECT slice, count(*)::int AS n FROM etl.rejects WHERE stream = 'cdrs' AND replayed_at IS NULL
      GROUP BY slice ORDER BY slice`.execute(db.warehouse.db);
    expect(rejects.rows).toEqual(
      [...perDay.entries()].sort().map(([day, n]) => ({ slice: `${day}..${nextDay(day)}`, n })),
    );
    expect(await completedLabels(db.warehouse, "default", "cdrs")).toEqual([]);
    const held = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM etl.run_slices WHERE stream = 'cdrs' AND status = 'held'`.execute(
      db.warehouse.db,
    );
    expect(held.rows[0]?.n).toBe(4);
    const status = await runCli(["status"], { env });
    expect(status.stdout).toMatch(
      /held open 2026-08-01\.\.2026-08-02 in run \d+: account default, stream cdrs/,
    );

    // The platform is fixed: the next run re-reads the open windows, loads them and the rejects converge.
    await swapFaults(sandbox, { profile: "none" });
    const fixed = await runCli(["run"], { env });
    expect(fixed.code, fixed.stderr.slice(-2000)).toBe(0);
    expect(await loadedRows(db.warehouse, "cdrs", "default")).toEqual(
      await expectedRows(sandbox, "cdrs", account.name, { from: "2026-08-01", to: "2026-08-05" }),
    );
    const pending = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM etl.rejects WHERE replayed_at IS NULL`.execute(db.warehouse.db);
    expect(pending.rows[0]?.n).toBe(0);
    // Read at 2026-08-05 00:00, only the first day has settled (ended 72 h before).
    expect(await completedLabels(db.warehouse, "default", "cdrs")).toEqual(["2026-08-01..2026-08-02"]);
  });

  it("a run of small quarantines (a corrupted row now and then) still exits 3 and settles its windows", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 32,
      start: "2026-08-01",
      days: 6,
      accounts: 1,
      callsPerDay: 400,
      faults: { base: "none", rows: { missingField: 0.004, wrongType: 0.002 } },
    });
    const db = await createDatabase();
    const result = await runAt(db.warehouse, sandboxConfig(sandbox), sandbox, { command: "run" });
    expect(result.exitCode, JSON.stringify(result.streams.map((s) => s.errors))).toBe(3);
    const cdrs = result.streams.find((s) => s.stream === "cdrs")!;
    expect(cdrs.rejected).toBeGreaterThan(0);
    expect(cdrs.windowsHeld).toBe(0);
    expect(cdrs.windowsCompleted).toBe(3);
  });
});

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
