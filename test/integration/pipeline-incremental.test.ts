import { describe, expect, it } from "../helpers/fixtures.js";
import {
  completedLabels,
  duplicateKeys,
  expectedRows,
  loadedRows,
  runAt,
  SAMPLE_STREAMS,
  sandboxConfig,
  setSandboxClock,
  truthRange,
  truthRecords,
} from "./pipeline-harness.js";

it.override({
  sandboxOptions: {
    seed: 7,
    start: "2026-08-01",
    days: 14,
    accounts: 2,
    callsPerDay: 80,
    lateShare: 0.15,
    now: "2026-08-05T06:00:00Z",
  },
});

/**
 * Issue 4, test 1: nightly runs over 10 days of sandbox time, with late-arriving CDRs, end with
 * tables equal to the sandbox's truth; a single backfill of the same range into a fresh database
 * gives identical rows.
 */
describe("incremental runs equal a full load", () => {
  it("ten nightly runs with late arrivals converge to the truth; one backfill gives the same rows", async ({
    sandbox,
    createDatabase,
  }) => {
    const [nightly, backfilled] = await Promise.all([createDatabase(), createDatabase()]);
    const config = sandboxConfig(sandbox);
    const accounts = config.accounts.map((a) => a.name);
    for (let day = 0; day < 10; day++) {
      const now = new Date(Date.parse("2026-08-05T06:00:00Z") + day * 86_400_000).toISOString();
      await setSandboxClock(sandbox, now);
      const result = await runAt(nightly.warehouse, config, sandbox, { command: "run" });
      expect(result.exitCode, JSON.stringify(result.streams)).toBe(0);
      // Every night reads the windows not settled yet (read before 72 h after their end: the last
      // four days; the oldest of them settles with this read) and today. No more, however long the history.
      const cdrs = result.streams.find((s) => s.stream === "cdrs")!;
      expect(cdrs.windowsPlanned).toBe(5);
      expect(cdrs.windowsCompleted).toBe(1);
    }
    // Some rows became visible only after the run that first read their day: re-reading unsettled windows got them.
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
      for (const stream of SAMPLE_STREAMS) {
        const expected = await expectedRows(
          sandbox,
          stream,
          account,
          truthRange(stream, "2026-08-01", "2026-08-14"),
        );
        const loaded = await loadedRows(nightly.warehouse, stream, account);
        expect(loaded.length, `${account}/${stream}`).toBe(expected.length);
        expect(loaded, `${account}/${stream}`).toEqual(expected);
      }
      // Every day read 72 h or more after its end is settled (through 2026-08-10); the later ones are not.
      const completed = await completedLabels(nightly.warehouse, account, "cdrs");
      expect(completed).toHaveLength(10);
      expect(completed.at(-1)).toBe("2026-08-10..2026-08-11");
    }
    expect(await duplicateKeys(nightly.warehouse, "cdrs")).toBe(0);
    const cdrTotal = (await Promise.all(accounts.map((a) => loadedRows(nightly.warehouse, "cdrs", a)))).flat()
      .length;
    expect(cdrTotal).toBeGreaterThan(1000);

    const backfill = await runAt(backfilled.warehouse, config, sandbox, {
      command: "backfill",
      streams: [...SAMPLE_STREAMS],
      from: "2026-08-01",
      to: "2026-08-14",
    });
    expect(backfill.exitCode).toBe(0);
    for (const account of accounts) {
      for (const stream of SAMPLE_STREAMS) {
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
      streams: [...SAMPLE_STREAMS],
      from: "2026-08-01",
      to: "2026-08-14",
    });
    expect(again.exitCode).toBe(0);
    for (const s of again.streams.filter((s) => s.stream !== "short_link_metrics")) {
      expect(s.inserted + s.updated, `${s.account}/${s.stream}`).toBe(0);
    }
  });
});
