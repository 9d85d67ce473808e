import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { formatRunDetail } from "../../src/cli/format-runs.js";
import type { EtlConfig } from "../../src/config/config.js";
import { readNightFacts } from "../../src/report/night-facts.js";
import { readRuns, runWindowProblems } from "../../src/warehouse/state/run-history.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { cutListAfter, isCdrListOf, startFaultProxy } from "./fault-proxy.js";
import {
  completedLabels,
  expectedRows,
  loadedRows,
  runAt,
  sandboxConfig,
  setSandboxClock,
  truthRecords,
} from "./pipeline-harness.js";
import { platform } from "./sandbox-client.js";
import { expectedFromTruth } from "./truth-oracle.js";

/**
 * Issue 32, item 3 (b): a platform that lies consistently about a page boundary (`total` equal to
 * `per_page`, the page after it empty, whatever `per_page` is asked) lets a window settle short;
 * the loader never reads a settled window again. Every `run` now re-counts settled windows (the
 * platform's `pagination.total` per window and direction, `per_page=1`) against what the
 * warehouse holds and opens a window that differs again: once the platform tells the truth, the
 * nightly re-count finds the short window and its re-read loads the rows, without `--refetch`.
 */
const START = "2026-08-01";
const NOW = "2026-08-07T00:00:00Z";
const LYING_DAY = "2026-08-02";
const HOUR = 3_600_000;

/** A config reading only CDRs of the world's one account through `baseUrl`, settling 24 h after a window's end. */
function cdrConfig(sandbox: RunningSandbox, baseUrl: string, overrides: Partial<EtlConfig> = {}): EtlConfig {
  const config = sandboxConfig(sandbox, { baseUrl, settleHours: 24, ...overrides });
  return { ...config, accounts: config.accounts.map((a) => ({ ...a, streams: ["cdrs"] })) };
}

describe("the re-count of settled windows", () => {
  it("finds a window a consistent liar let settle short, once the platform tells the truth: the warehouse reaches the truth without --refetch", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 32,
      start: START,
      days: 6,
      accounts: 1,
      callsPerDay: 300,
      lateShare: 0,
      now: NOW,
    });
    const lying = { on: true };
    // The placed CDRs of one day lose every row past the first 100, consistently.
    const proxy = await startFaultProxy(
      sandbox.url,
      () => undefined,
      cutListAfter(100, "items", (url) => lying.on && isCdrListOf(url, LYING_DAY, "placed")),
    );
    try {
      const db = await createDatabase();
      const config = cdrConfig(sandbox, proxy.url);
      expect(config.perPage).toBe(100);
      const account = config.accounts[0]!.name;
      const truth = await expectedRows(sandbox, "cdrs", account, { from: START, to: "2026-08-07" });
      const lyingWindow = `${LYING_DAY}..2026-08-03`;

      // Night 1: the lie is served and believed; the short window settles.
      const lied = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(lied.exitCode, JSON.stringify(lied.streams.map((s) => s.errors))).toBe(0);
      expect(await completedLabels(db.warehouse, account, "cdrs")).toContain(lyingWindow);
      const short = truth.length - (await loadedRows(db.warehouse, "cdrs", account)).length;
      // The fault bites: a page boundary's worth of CDRs is missing after a clean run.
      expect(short).toBeGreaterThan(20);

      // Night 2: the platform tells the truth again; nothing else would read the settled window.
      lying.on = false;
      await setSandboxClock(sandbox, new Date(Date.parse(NOW) + 24 * HOUR).toISOString());
      const recovered = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(recovered.exitCode, JSON.stringify(recovered.streams.map((s) => s.errors))).toBe(0);
      expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(truth);
      const recount = recovered.streams[0]!.recount!;
      expect(recount.differing).toEqual([
        {
          window: lyingWindow,
          counts: [
            { part: "placed", platform: 100 + short, warehouse: 100 },
            { part: "received", platform: expect.any(Number), warehouse: expect.any(Number) },
          ],
        },
      ]);
      // Every settled window was counted, one request per direction: 5 settled windows before this run.
      expect(recount.windows).toBe(5);
      expect(recount.requests).toBe(10);
      expect(await completedLabels(db.warehouse, account, "cdrs")).toContain(lyingWindow);
      const reread = await sql<{ rows_inserted: number; settled: boolean }>`
        SELECT rows_inserted, settled FROM etl.run_slices
        WHERE run_id = ${recovered.runId} AND slice = ${lyingWindow}`.execute(db.warehouse.db);
      expect(reread.rows).toEqual([{ rows_inserted: short, settled: true }]);

      // Said in `runs show` and on the night's page.
      const [run] = await readRuns(db.warehouse.db, { ids: [recovered.runId] });
      const detail = formatRunDetail(run!, await runWindowProblems(db.warehouse.db, recovered.runId), []);
      expect(detail).toContain(
        `        re-count: account ${account}, stream cdrs, window ${lyingWindow}: the platform counts ${100 + short} rows (placed), the warehouse holds 100`,
      );
      const night = await readNightFacts(db.warehouse.db, { now: Date.now(), runId: recovered.runId });
      expect(night.recounts.map((r) => [r.stream, r.record.differing.map((d) => d.window)])).toEqual([
        ["cdrs", [lyingWindow]],
      ]);
      // A later window count agrees: nothing is opened again.
      const again = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(again.exitCode).toBe(0);
      expect(again.streams[0]!.recount?.differing ?? []).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

type Row = Record<string, unknown>;
type Page = { items: Row[]; pagination: { total: number; per_page: number; total_pages: number } };

/** The CDR list of one day and direction as the platform serves it (one page of up to 1,000). */
async function cdrList(sandbox: RunningSandbox, day: string, type: string): Promise<Row[]> {
  const answer = await platform(
    sandbox,
    `/v1/cdr?from=${day}&to=${day}&type=${type}&disposition=all&page=1&per_page=1000`,
  );
  return (answer.body as Page).items;
}

const callId = (row: Row) => String(row.call_id ?? row.uuid);
const onDay = (date: unknown, day: string) => `${day}${String(date).slice(10)}`;

/**
 * The platform changes its mind about settled days of placed CDRs: call `moved` is listed under
 * `to` (its date moved there) and no longer under `from`; call `dropped` is no longer listed on its
 * day. Each list is one page here (fewer CDRs a day than a page holds), so only its rows and its
 * total change; a `per_page=1` request (the re-count) gets the new total.
 */
function rewriteSettledDays(
  state: { on: boolean },
  moved: { row: Row; from: string; to: string },
  dropped: { id: string; day: string },
) {
  return (url: URL, body: unknown) => {
    const isCdrList = url.pathname === "/v1/cdr" || url.pathname === "/v1/cdrs";
    if (!state.on || !isCdrList || url.searchParams.get("type") !== "placed") return undefined;
    const day = url.searchParams.get("from");
    const answer = body as Page;
    let items = answer.items;
    let change = -1;
    if (day === moved.from) items = items.filter((row) => callId(row) !== callId(moved.row));
    else if (day === moved.to) {
      items = [...items, { ...moved.row, date: onDay(moved.row.date, moved.to) }];
      change = 1;
    } else if (day === dropped.day) items = items.filter((row) => callId(row) !== dropped.id);
    else return undefined;
    const total = answer.pagination.total + change;
    if (answer.pagination.per_page === 1)
      return { ...answer, pagination: { ...answer.pagination, total, total_pages: total } };
    if (answer.pagination.total > answer.pagination.per_page)
      throw new Error("the test wants one page a day");
    return { ...answer, items, pagination: { ...answer.pagination, total, total_pages: 1 } };
  };
}

describe("the re-count of settled windows, rows moved and removed", () => {
  it("a CDR moved into another settled day is moved there (logged), a vanished one is deleted only once accepted", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 33,
      start: START,
      days: 6,
      accounts: 1,
      callsPerDay: 90,
      lateShare: 0,
      now: NOW,
    });
    const [movedFrom, movedTo, droppedDay] = ["2026-08-02", "2026-08-03", "2026-08-04"];
    const movedRow = (await cdrList(sandbox, movedFrom, "placed"))[3]!;
    const droppedId = callId((await cdrList(sandbox, droppedDay, "placed"))[5]!);
    const state = { on: false };
    const proxy = await startFaultProxy(
      sandbox.url,
      () => undefined,
      rewriteSettledDays(
        state,
        { row: movedRow, from: movedFrom, to: movedTo },
        { id: droppedId, day: droppedDay },
      ),
    );
    try {
      const db = await createDatabase();
      const config = cdrConfig(sandbox, proxy.url);
      const account = config.accounts[0]!.name;
      expect((await runAt(db.warehouse, config, sandbox, { command: "run" })).exitCode).toBe(0);
      const settled = await completedLabels(db.warehouse, account, "cdrs");
      expect(settled).toEqual(
        expect.arrayContaining([`${movedFrom}..${movedTo}`, `${droppedDay}..2026-08-05`]),
      );

      // What the platform says now, from its truth (never through the loader's mapping).
      const records = await truthRecords(sandbox, "cdrs", account, { from: START, to: "2026-08-07" });
      const isMoved = (r: Row) => r.direction === "placed" && callId(r) === callId(movedRow);
      const isDropped = (r: Row) => r.direction === "placed" && callId(r) === droppedId;
      expect(records.filter(isMoved)).toHaveLength(1);
      expect(records.filter(isDropped)).toHaveLength(1);
      const truthNow = expectedFromTruth(
        "cdrs",
        records
          .filter((r) => !isDropped(r))
          .map((r) => (isMoved(r) ? { ...r, date: onDay(r.date, movedTo) } : r)),
      );
      const droppedRow = expectedFromTruth("cdrs", records.filter(isDropped))[0]!;

      state.on = true;
      await setSandboxClock(sandbox, new Date(Date.parse(NOW) + 24 * HOUR).toISOString());
      const night = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(night.exitCode).toBe(1);
      const cdrs = night.streams[0]!;
      expect(cdrs.recount?.differing.map((d) => d.window)).toEqual([
        `${movedFrom}..${movedTo}`,
        `${movedTo}..${droppedDay}`,
        `${droppedDay}..2026-08-05`,
      ]);
      expect(cdrs.errors).toEqual([
        expect.stringMatching(
          new RegExp(
            `^account ${account}, stream cdrs, window ${droppedDay}\\.\\.2026-08-05: 1 row the warehouse holds in this settled window is no longer listed by the platform \\(it lists \\d+\\); held: the warehouse keeps its rows\\. .* --accept-shrink ${account}/cdrs/${droppedDay}$`,
          ),
        ),
      ]);
      // The moved call was merged under its new day (its old copy deleted, the move logged for the
      // marts), before its old day's re-read could take it for vanished: that day settled again.
      const moves = await sql<{ row_key: string[]; moved_to_day: string }>`
        SELECT row_key, moved_to_day::text FROM etl.landing_moves WHERE landing_table = 'platform.cdrs'`.execute(
        db.warehouse.db,
      );
      expect(moves.rows).toEqual([{ row_key: ["placed", callId(movedRow)], moved_to_day: movedTo }]);
      expect(await completedLabels(db.warehouse, account, "cdrs")).toEqual(
        expect.arrayContaining([`${movedFrom}..${movedTo}`, `${movedTo}..${droppedDay}`]),
      );
      expect(await completedLabels(db.warehouse, account, "cdrs")).not.toContain(`${droppedDay}..2026-08-05`);
      // The vanished call is still there: a settled window's rows go only when an operator says so.
      const held = await loadedRows(db.warehouse, "cdrs", account);
      expect(held).toContain(droppedRow);
      expect(held.filter((row) => row !== droppedRow)).toEqual(truthNow);

      const accepted = await runAt(db.warehouse, config, sandbox, {
        command: "run",
        accepted: { shrink: [{ account, stream: "cdrs", windowStart: droppedDay }], drift: [] },
      });
      expect(accepted.exitCode, JSON.stringify(accepted.streams[0]!.errors)).toBe(0);
      expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(truthNow);
      const deletion = await sql<{ slice: string; rows_deleted: number; settled: boolean }>`
        SELECT slice, rows_deleted, settled FROM etl.run_slices
        WHERE run_id = ${accepted.runId} AND rows_deleted > 0`.execute(db.warehouse.db);
      expect(deletion.rows).toEqual([{ slice: `${droppedDay}..2026-08-05`, rows_deleted: 1, settled: true }]);
      expect(accepted.streams[0]!.deleted).toBe(1);
      const reopened = await sql<{ n: number }>`SELECT count(*)::int AS n FROM etl.reopened_windows`.execute(
        db.warehouse.db,
      );
      expect(reopened.rows[0]!.n).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});

/**
 * Clicks of `days` as the platform serves them, `dropped` of each no longer listed while `on`: a
 * valid answer that shrinks a settled window by no more than `max_shrink_share`.
 */
function dropClicks(state: { on: boolean }, dropped: ReadonlyMap<string, ReadonlySet<string>>) {
  const key = (row: Row) => JSON.stringify([row.created_at, row.phone, row.link_hash]);
  return (url: URL, body: unknown) => {
    const day = url.searchParams.get("from") ?? "";
    const gone = dropped.get(day);
    if (!state.on || url.pathname !== "/v1/short-links/metrics" || gone === undefined) return undefined;
    const answer = body as { metrics: Row[]; pagination: Page["pagination"] };
    const total = answer.pagination.total - gone.size;
    if (answer.pagination.per_page === 1)
      return { ...answer, pagination: { ...answer.pagination, total, total_pages: total } };
    const metrics = answer.metrics.filter((row) => !gone.has(key(row)));
    return { ...answer, metrics, pagination: { ...answer.pagination, total, total_pages: 1 } };
  };
}

describe("a replace-read of a settled window that deletes rows", () => {
  it("is held even just under max_shrink_share, and once accepted reports rows_deleted per window", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 41,
      start: START,
      days: 6,
      accounts: 1,
      callsPerDay: 400,
      lateShare: 0,
      now: NOW,
    });
    const db = await createDatabase();
    const name = sandbox.world.accounts[0]!.name;
    // 08-03 is re-read because the re-count differs, 08-05 because it is in the lookback: both settled.
    const days = ["2026-08-03", "2026-08-05"];
    const key = (row: Row) => JSON.stringify([row.created_at, row.phone, row.link_hash]);
    const dropped = new Map<string, Set<string>>();
    const records = await truthRecords(sandbox, "short_link_metrics", name, {
      from: START,
      to: "2026-08-07",
    });
    for (const day of days) {
      const ofDay = records.filter((r) => String(r.created_at).startsWith(day));
      // Enough rows for the share rule to judge them, one page.
      expect(ofDay.length).toBeGreaterThanOrEqual(10);
      expect(ofDay.length).toBeLessThanOrEqual(100);
      // Just under max_shrink_share (0.5): the rule that held only larger shrinks let it through.
      dropped.set(day, new Set(ofDay.slice(0, Math.floor(ofDay.length / 2)).map(key)));
    }
    const state = { on: false };
    const proxy = await startFaultProxy(sandbox.url, () => undefined, dropClicks(state, dropped));
    try {
      const config = sandboxConfig(sandbox, { baseUrl: proxy.url, settleHours: 24, lookbackDays: 3 });
      const clicksOnly = {
        ...config,
        accounts: config.accounts.map((a) => ({ ...a, streams: ["short_link_metrics"] })),
      };
      expect(clicksOnly.maxShrinkShare).toBe(0.5);
      expect((await runAt(db.warehouse, clicksOnly, sandbox, { command: "run" })).exitCode).toBe(0);
      const before = await loadedRows(db.warehouse, "short_link_metrics", name);
      expect(before).toEqual(expectedFromTruth("short_link_metrics", records));

      state.on = true;
      await setSandboxClock(sandbox, new Date(Date.parse(NOW) + 24 * HOUR).toISOString());
      const shrunk = await runAt(db.warehouse, clicksOnly, sandbox, { command: "run" });
      expect(shrunk.exitCode).toBe(1);
      expect(await loadedRows(db.warehouse, "short_link_metrics", name)).toEqual(before);
      const held = await sql<{ slice: string; hold_reason: string; error: string; rows_deleted: number }>`
        SELECT slice, hold_reason, error, rows_deleted FROM etl.run_slices
        WHERE run_id = ${shrunk.runId} AND status = 'held' ORDER BY slice`.execute(db.warehouse.db);
      expect(held.rows.map((h) => [h.slice.slice(0, 10), h.hold_reason, h.rows_deleted])).toEqual(
        days.map((day) => [day, "shrink", 0]),
      );
      for (const [i, day] of days.entries())
        expect(held.rows[i]!.error).toContain(
          `: ${dropped.get(day)!.size} rows the warehouse holds in this settled window are no longer listed by the platform`,
        );

      const accepted = await runAt(db.warehouse, clicksOnly, sandbox, {
        command: "run",
        accepted: {
          shrink: days.map((day) => ({ account: name, stream: "short_link_metrics", windowStart: day })),
          drift: [],
        },
      });
      expect(accepted.exitCode, JSON.stringify(accepted.streams[0]!.errors)).toBe(0);
      expect(await loadedRows(db.warehouse, "short_link_metrics", name)).toEqual(
        expectedFromTruth(
          "short_link_metrics",
          records.filter((r) => !dropped.get(String(r.created_at).slice(0, 10))?.has(key(r))),
        ),
      );
      const deletions = await sql<{ slice: string; rows_deleted: number }>`
        SELECT slice, rows_deleted FROM etl.run_slices
        WHERE run_id = ${accepted.runId} AND rows_deleted > 0 ORDER BY slice`.execute(db.warehouse.db);
      expect(deletions.rows.map((d) => [d.slice.slice(0, 10), d.rows_deleted])).toEqual(
        days.map((day) => [day, dropped.get(day)!.size]),
      );
      const [run] = await readRuns(db.warehouse.db, { ids: [accepted.runId] });
      expect(run!.streams[0]!.rowsDeleted).toBe(days.reduce((n, day) => n + dropped.get(day)!.size, 0));
    } finally {
      await proxy.close();
    }
  });
});
