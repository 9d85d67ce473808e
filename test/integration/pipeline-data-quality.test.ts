import { sql } from "kysely";
import type { EtlConfig } from "../../src/config/config.js";
import { STREAM_NAMES } from "../../src/streams/registry.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { startFaultProxy } from "./fault-proxy.js";
import {
  capturingLogger,
  expectedRows,
  loadedRows,
  runAt,
  sandboxConfig,
  truthRecords,
} from "./pipeline-harness.js";

/**
 * Issue "nothing lost", item 6: values that look like data but are not. An answered call with a
 * rate and a duration but `charge: null` is counted per window and in the run summary, with a
 * warning, and stays null; the platform's clock (its Date header) is compared with the run's and
 * a skew of more than 5 minutes is logged once; a TELECOM_ETL_NOW far ahead of the machine's clock
 * needs --allow-future-now; `status` lists every configured stream.
 */
describe("values that look like data but are not", () => {
  it("answered calls without a charge are counted per window and kept null", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 61,
      start: "2026-08-01",
      days: 3,
      accounts: 1,
      callsPerDay: 800,
      faults: { base: "none", rows: { nullCharge: 0.02 } },
    });
    const db = await createDatabase();
    const account = sandbox.world.accounts[0]!.name;
    const lines: string[] = [];
    const result = await runAt(
      db.warehouse,
      sandboxConfig(sandbox),
      sandbox,
      { command: "run" },
      { log: capturingLogger(lines) },
    );
    expect(result.exitCode).toBe(0);
    // The oracle: the rows the sandbox served with a null charge, per day.
    const nullCharges = (await truthRecords(sandbox, "cdrs", account, {}, "/malformed")).filter(
      (m) => m.kind === "null_charge",
    );
    expect(nullCharges.length).toBeGreaterThan(10);
    const perDay = new Map<string, number>();
    for (const m of nullCharges) {
      const day = String((m.raw as { date: string }).date).slice(0, 10);
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
    const recorded = await sql<{ day: string; n: number }>`
      SELECT window_start::text AS day, (quality->>'missing_charge')::int AS n FROM etl.run_slices
      WHERE stream = 'cdrs' AND quality IS NOT NULL ORDER BY 1`.execute(db.warehouse.db);
    expect(recorded.rows).toEqual([...perDay.entries()].sort().map(([day, n]) => ({ day, n })));
    const cdrs = result.streams.find((s) => s.stream === "cdrs")!;
    expect(cdrs.quality).toEqual({ missing_charge: nullCharges.length });
    expect(
      lines.filter((line) =>
        line.includes("answered calls with a per-minute rate and a duration but no charge"),
      ).length,
    ).toBe(perDay.size);
    // Kept as they are: the rows equal the truth, null charges null, never 0.
    expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(
      await expectedRows(sandbox, "cdrs", account, { from: "2026-08-01", to: result.today }),
    );
    const nulls = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM platform.cdrs WHERE disposition = 'answered' AND charge IS NULL
        AND per_minute IS NOT NULL AND duration > 0`.execute(db.warehouse.db);
    expect(nulls.rows[0]?.n).toBe(nullCharges.length);
  });

  it("a platform clock 7 minutes ahead is logged once per run; within 5 minutes nothing is", async ({
    launchSandbox,
    createDatabase,
  }) => {
    for (const [skewMs, warnings] of [
      [7 * 60_000, 1],
      [4 * 60_000, 0],
    ] as const) {
      const sandbox = await launchSandbox({
        seed: 62,
        start: "2026-08-01",
        days: 3,
        accounts: 1,
        callsPerDay: 50,
        clockSkewMs: skewMs,
      });
      const db = await createDatabase();
      const lines: string[] = [];
      const result = await runAt(
        db.warehouse,
        sandboxConfig(sandbox),
        sandbox,
        { command: "run" },
        { log: capturingLogger(lines) },
      );
      expect(result.exitCode).toBe(0);
      const skews = lines.filter((line) => line.includes("the platform's clock (its Date header)"));
      expect(skews, `skew ${skewMs}`).toHaveLength(warnings);
      if (warnings > 0) expect(skews[0]).toContain("7 min ahead of");
    }
  });

  it("a window that ends after the platform's clock is never completed, whatever the run's clock says", async ({
    launchSandbox,
    createDatabase,
  }) => {
    // The platform's clock is 4 days behind the run's: by the run's clock every past window settled,
    // by the platform's none has (its last day ended less than 72 h before the platform's now).
    const sandbox = await launchSandbox({
      seed: 63,
      start: "2026-08-01",
      days: 3,
      accounts: 1,
      callsPerDay: 50,
      clockSkewMs: -4 * 86_400_000,
    });
    const db = await createDatabase();
    const config = sandboxConfig(sandbox);
    const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(result.exitCode).toBe(0);
    const cdrs = result.streams.find((s) => s.stream === "cdrs")!;
    expect(cdrs.windowsCompleted).toBe(0);
  });

  it("without the platform's Date header, windows settle only a margin later, said once per run", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 64,
      start: "2026-08-01",
      days: 6,
      accounts: 1,
      callsPerDay: 50,
    });
    const proxy = await startFaultProxy(sandbox.url, () => undefined, undefined, { dropDateHeader: true });
    try {
      const settledBy = async (baseUrl: string, extra: Partial<EtlConfig>) => {
        const db = await createDatabase();
        const lines: string[] = [];
        const config = sandboxConfig(sandbox, { baseUrl, ...extra });
        const result = await runAt(
          db.warehouse,
          config,
          sandbox,
          { command: "run" },
          { log: capturingLogger(lines) },
        );
        expect(result.exitCode).toBe(0);
        const cdrs = result.streams.find((s) => s.stream === "cdrs")!;
        const warnings = lines.filter((line) => line.includes("sent no Date header"));
        return { completed: cdrs.windowsCompleted, warnings: warnings.length };
      };
      // Read at 2026-08-07 00:00 with settle_hours 72: windows ending by 08-04 settle on the
      // platform's clock; without it, 24 h more are asked of this machine's clock.
      expect(await settledBy(sandbox.url, {})).toEqual({ completed: 3, warnings: 0 });
      expect(await settledBy(proxy.url, {})).toEqual({ completed: 2, warnings: 1 });
      expect(await settledBy(proxy.url, { missingClockMarginHours: 0 })).toEqual({
        completed: 3,
        warnings: 0,
      });
    } finally {
      await proxy.close();
    }
  });

  it("TELECOM_ETL_NOW more than a day behind needs --allow-past-now", async ({ sandbox, createDatabase }) => {
    const database = await createDatabase();
    const env = {
      TELECOM_API_URL: sandbox.url,
      TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
      DATABASE_URL: database.url,
      TELECOM_ETL_NOW: new Date(Date.now() - 3 * 86_400_000).toISOString(),
      TELECOM_ETL_ALLOW_PAST_NOW: undefined,
    };
    const refused = await runCli(["run"], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /TELECOM_ETL_NOW .* is more than a day behind this machine's clock .*--allow-past-now/,
    );
    const allowed = await runCli(["run", "--allow-past-now", "--streams", "invoices"], { env });
    expect(allowed.stderr).not.toMatch(/more than a day behind/);
  });

  it("TELECOM_ETL_NOW more than a day ahead needs --allow-future-now; status lists every configured stream", async ({
    sandbox,
    database,
  }) => {
    const env = {
      TELECOM_API_URL: sandbox.url,
      TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
      DATABASE_URL: database.url,
      TELECOM_ETL_NOW: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    };
    const refused = await runCli(["run"], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /TELECOM_ETL_NOW .* is more than a day ahead of this machine's clock .*--allow-future-now/,
    );
    const runs = await sql<{ n: number }>`SELECT count(*)::int AS n FROM etl.runs`
      .execute(database.warehouse.db)
      .catch(() => ({
        rows: [{ n: 0 }],
      }));
    expect(runs.rows[0]?.n).toBe(0);

    const status = await runCli(["status"], { env });
    expect(status.code).toBe(0);
    // No TELECOM_ETL_STREAMS: the config enables every stream of the registry.
    for (const stream of STREAM_NAMES) {
      expect(status.stdout).toContain(`default/${stream}\n`);
    }
    expect(status.stdout).toContain("never run yet");
  });
});
