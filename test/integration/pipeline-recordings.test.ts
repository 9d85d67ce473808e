import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import type { EtlConfig } from "../../src/config/config.js";
import { addDays, dayToMs } from "../../src/core/utc-days.js";
import { listRejects } from "../../src/warehouse/state/rejects.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import {
  completedLabels,
  expectedRows,
  loadedRows,
  runAt,
  sandboxConfig,
  setSandboxClock,
  truthRecords,
} from "./pipeline-harness.js";

/**
 * Issue 14 §2: recordings are read by date window (`GET /v1/recordings?from_date&to_date`), a page
 * of many at a time, never call by call: at most one request per page of 100 plus one per empty
 * window, counted by the sandbox itself. Windows settle like CDRs: a recording whose call's CDR
 * arrives late is listed late, and only a re-read of its unsettled window loads it. Expected rows
 * come from the sandbox's truth export through the test oracle.
 */
const HOUR = 3_600_000;
const PER_PAGE = 100;

/** Requests the sandbox answered per route and status. */
async function routeStats(sandbox: RunningSandbox): Promise<Record<string, Record<string, number>>> {
  const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
    routes: Record<string, Record<string, number>>;
  };
  return stats.routes;
}

/** The config reading only the recordings stream of each account. */
function onlyRecordings(config: EtlConfig): EtlConfig {
  return { ...config, accounts: config.accounts.map((a) => ({ ...a, streams: ["recordings"] })) };
}

/** All answers of `route`, every status. */
const sum = (byStatus: Record<string, number> | undefined) =>
  Object.values(byStatus ?? {}).reduce((a, b) => a + b, 0);

describe("recordings by date window", () => {
  it("a first run asks one request per page of 100 and one per empty window, and loads the truth", async ({
    launchSandbox,
    createDatabase,
  }) => {
    // Two days before the world and four after it have no calls: empty windows, one request each.
    const sandbox = await launchSandbox({
      seed: 31,
      start: "2026-08-01",
      days: 4,
      accounts: 1,
      callsPerDay: 2500,
      now: "2026-08-09T02:00:00Z",
    });
    const db = await createDatabase();
    const config = onlyRecordings(sandboxConfig(sandbox, { startDate: "2026-07-30", perPage: PER_PAGE }));
    const account = config.accounts[0]!.name;
    const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(result.exitCode, JSON.stringify(result.streams)).toBe(0);

    const range = { from: "2026-07-30", to: result.today };
    expect(await loadedRows(db.warehouse, "recordings", account)).toEqual(
      await expectedRows(sandbox, "recordings", account, range),
    );
    const perDay = new Map<string, number>();
    for (const r of await truthRecords(sandbox, "recordings", account, range)) {
      const day = String(r.created_at).slice(0, 10);
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
    let pages = 0;
    let windows = 0;
    for (let day = range.from; day <= range.to; day = addDays(day, 1)) {
      windows += 1;
      pages += Math.max(1, Math.ceil((perDay.get(day) ?? 0) / PER_PAGE));
    }
    // The test bites: some day needs more than one page, and some window is empty.
    expect(Math.max(...perDay.values())).toBeGreaterThan(PER_PAGE);
    expect(perDay.size).toBeLessThan(windows);
    const routes = await routeStats(sandbox);
    expect(routes["GET /v1/recordings"]).toEqual({ "200": pages });
    const total = [...perDay.values()].reduce((a, b) => a + b, 0);
    expect(pages).toBeLessThanOrEqual(Math.ceil(total / PER_PAGE) + windows);
    // Never call by call: no single-CDR or single-recording request at all.
    for (const route of ["GET /v1/cdr/{uuid}", "GET /v1/recordings/{call_uuid}"]) {
      expect(sum(routes[route]), route).toBe(0);
    }
  });

  it("re-reads a window until it settles: a recording listed late (its CDR was late) is loaded by a later run", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const start = "2026-08-01";
    const sandbox = await launchSandbox({
      seed: 17,
      start,
      days: 6,
      accounts: 1,
      callsPerDay: 300,
      lateShare: 0.2,
      now: "2026-08-04T02:00:00Z",
    });
    const db = await createDatabase();
    const config = onlyRecordings(sandboxConfig(sandbox));
    const account = config.accounts[0]!.name;
    const readsOf = new Map<string, number[]>();
    let now = Date.parse("2026-08-04T02:00:00Z");
    for (const jumpHours of [0, 24, 48, 96]) {
      now += jumpHours * HOUR;
      await setSandboxClock(sandbox, new Date(now).toISOString());
      const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(result.exitCode, JSON.stringify(result.streams)).toBe(0);
      expect(await loadedRows(db.warehouse, "recordings", account), `after a ${jumpHours} h jump`).toEqual(
        await expectedRows(sandbox, "recordings", account, { from: start, to: result.today }),
      );
      // Settled: read at least settle_hours (72) after the window's end; every other window is read again.
      const settled: string[] = [];
      for (let day = start; dayToMs(addDays(day, 1)) + 72 * HOUR <= now; day = addDays(day, 1)) {
        settled.push(`${day}..${addDays(day, 1)}`);
      }
      expect(await completedLabels(db.warehouse, account, "recordings")).toEqual(settled);
      for (let day = start; day <= result.today; day = addDays(day, 1)) {
        readsOf.set(day, [...(readsOf.get(day) ?? []), now]);
      }
    }
    // The test bites: a recording's call CDR became visible after a run had read the recording's day.
    const late = await truthRecords(sandbox, "cdrs", account, { from: start, to: "2026-08-12" }, "/late");
    const visibleAt = new Map(late.map((c) => [String(c.uuid), Date.parse(String(c.visible_at))]));
    const recordings = await truthRecords(sandbox, "recordings", account, { from: start, to: "2026-08-12" });
    const listedAfterARead = recordings.filter((r) => {
      const at = visibleAt.get(String(r.call_uuid));
      const day = String(r.created_at).slice(0, 10);
      return at !== undefined && (readsOf.get(day) ?? []).some((readAt) => readAt < at);
    });
    expect(listedAfterARead.length).toBeGreaterThan(0);
  });

  it("under row and page faults: the valid recordings equal the truth, the corrupted ones are the rejects", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const start = "2026-08-01";
    const sandbox = await launchSandbox({
      seed: 44,
      start,
      days: 3,
      accounts: 1,
      callsPerDay: 1500,
      now: "2026-08-04T06:00:00Z",
      faults: {
        base: "none",
        rows: { wrongType: 0.01, missingField: 0.01, unknownEnum: 0.01, extraField: 0.02 },
        pages: { duplicateRow: 0.1, shortPage: 0.1 },
      },
    });
    const db = await createDatabase();
    // A share of rejects this high is the test's own doing, not a schema change: never hold a window for it.
    const config = onlyRecordings(sandboxConfig(sandbox, { maxRejectShare: 0.5 }));
    const account = config.accounts[0]!.name;
    const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect([0, 3], JSON.stringify(result.streams)).toContain(result.exitCode);
    const range = { from: start, to: result.today };
    expect(await loadedRows(db.warehouse, "recordings", account)).toEqual(
      await expectedRows(sandbox, "recordings", account, range),
    );
    const malformed = await truthRecords(sandbox, "recordings", account, range, "/malformed");
    // Compared with sorted keys: a reject's raw row is stored as jsonb, which orders keys its own way.
    const canonical = (row: unknown) =>
      JSON.stringify(Object.fromEntries(Object.entries(row as Record<string, unknown>).sort()));
    const corrupted = malformed.filter((m) => m.rejected === true).map((m) => canonical(m.raw));
    // The test bites: rows of every rejected kind, and valid rows with unknown fields kept in `_extra`.
    expect(new Set(malformed.filter((m) => m.rejected === true).map((m) => m.kind))).toEqual(
      new Set(["wrong_type", "missing_field", "unknown_enum"]),
    );
    expect(malformed.some((m) => m.kind === "extra_field" && m.rejected === false)).toBe(true);
    const faults = (
      (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
        faults: Record<string, number>;
      }
    ).faults;
    expect((faults.duplicateRow ?? 0) + (faults.shortPage ?? 0), JSON.stringify(faults)).toBeGreaterThan(0);
    const rejects = await listRejects(db.warehouse.db, { stream: "recordings", limit: 10_000 });
    expect(rejects.map((r) => canonical(r.raw)).sort()).toEqual(corrupted.sort());
  });
});
