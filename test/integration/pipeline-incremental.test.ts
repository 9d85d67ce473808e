import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/start-sandbox.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import {
  ALL_STREAMS,
  completedLabels,
  duplicateKeys,
  expectedRows,
  loadedRows,
  runAt,
  sandboxConfig,
  setSandboxClock,
  truthRecords,
} from "./pipeline-harness.js";

/**
 * Issue 4, test 1: nightly runs over 10 days of sandbox time, with late-arriving CDRs, end with
 * tables equal to the sandbox's truth; a single backfill of the same range into a fresh database
 * gives identical rows.
 */
describe("incremental runs equal a full load", () => {
  let sandbox: RunningSandbox;
  let nightly: TestDatabase;
  let backfilled: TestDatabase;

  beforeAll(async () => {
    sandbox = await startSandbox({
      seed: 7,
      start: "2026-08-01",
      days: 14,
      accounts: 2,
      callsPerDay: 80,
      lateShare: 0.15,
      now: "2026-08-05T06:00:00Z",
    });
    [nightly, backfilled] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  });

  afterAll(async () => {
    await sandbox?.close();
    await nightly?.drop();
    await backfilled?.drop();
  });

  it("ten nightly runs with late arrivals converge to the truth; one backfill gives the same rows", async () => {
    const config = sandboxConfig(sandbox);
    const accounts = config.accounts.map((a) => a.name);
    for (let day = 0; day < 10; day++) {
      const now = new Date(Date.parse("2026-08-05T06:00:00Z") + day * 86_400_000).toISOString();
      await setSandboxClock(sandbox, now);
      const result = await runAt(nightly.warehouse, config, sandbox, { command: "run" });
      expect(result.exitCode, JSON.stringify(result.streams)).toBe(0);
      // After the first run, a nightly run reads the lookback days and today only.
      const cdrs = result.streams.find((s) => s.stream === "cdrs")!;
      expect(cdrs.windowsPlanned).toBe(day === 0 ? 5 : 4);
    }
    // Some rows became visible only after the run that first completed their day: the lookback got them.
    const late = await truthRecords(
      sandbox,
      "cdrs",
      accounts[0]!,
      { from: "2026-08-01", to: "2026-08-12" },
      "/late",
    );
    const missedByFirstRead = late.filter((row) => {
      const day = String(row.date).slice(0, 10);
      const firstRead = Date.parse(`${day}T06:00:00Z`) + 86_400_000;
      return row.visible === true && Date.parse(String(row.visible_at)) > firstRead;
    });
    expect(missedByFirstRead.length).toBeGreaterThan(0);

    // The final clock is 2026-08-14T06:00Z: the truth up to today, at that clock.
    for (const account of accounts) {
      for (const stream of ALL_STREAMS) {
        const expected = await expectedRows(
          sandbox,
          stream,
          account,
          stream === "invoices" ? {} : { from: "2026-08-01", to: "2026-08-14" },
        );
        const loaded = await loadedRows(nightly.warehouse, stream, account);
        expect(loaded.length, `${account}/${stream}`).toBe(expected.length);
        expect(loaded, `${account}/${stream}`).toEqual(expected);
      }
      // Every past day is complete, today is not.
      const completed = await completedLabels(nightly.warehouse, account, "cdrs");
      expect(completed).toHaveLength(13);
      expect(completed.at(-1)).toBe("2026-08-13..2026-08-14");
    }
    expect(await duplicateKeys(nightly.warehouse, "cdrs")).toBe(0);
    const cdrTotal = (await Promise.all(accounts.map((a) => loadedRows(nightly.warehouse, "cdrs", a)))).flat()
      .length;
    expect(cdrTotal).toBeGreaterThan(1000);

    const backfill = await runAt(backfilled.warehouse, config, sandbox, {
      command: "backfill",
      streams: [...ALL_STREAMS],
      from: "2026-08-01",
      to: "2026-08-14",
    });
    expect(backfill.exitCode).toBe(0);
    for (const account of accounts) {
      for (const stream of ALL_STREAMS) {
        expect(await loadedRows(backfilled.warehouse, stream, account), `${account}/${stream}`).toEqual(
          await loadedRows(nightly.warehouse, stream, account),
        );
      }
      expect(await completedLabels(backfilled.warehouse, account, "cdrs")).toEqual(
        await completedLabels(nightly.warehouse, account, "cdrs"),
      );
    }

    // A second identical backfill changes nothing.
    const again = await runAt(backfilled.warehouse, config, sandbox, {
      command: "backfill",
      streams: [...ALL_STREAMS],
      from: "2026-08-01",
      to: "2026-08-14",
    });
    expect(again.exitCode).toBe(0);
    for (const s of again.streams.filter((s) => s.stream !== "short_link_metrics")) {
      expect(s.inserted + s.updated, `${s.account}/${s.stream}`).toBe(0);
    }
  });
});
