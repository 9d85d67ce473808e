import { cdrSchema } from "@telecom-etl/platform";
import { cdrsStream } from "../../src/streams/cdrs.js";
import { invoicesStream } from "../../src/streams/invoices.js";
import { toLoadRow } from "../../src/streams/load-row.js";
import { landingTables } from "../../src/streams/registry.js";
import type { Slice } from "../../src/streams/stream-definition.js";
import { loadSlice } from "../../src/warehouse/load/load-slice.js";
import { listRejects, markReplayed, pendingRejects } from "../../src/warehouse/state/rejects.js";
import { finishRun, startRun } from "../../src/warehouse/state/run-records.js";
import { recordFailedSlice } from "../../src/warehouse/state/slice-records.js";
import { completedWindows, resetStreamState, streamStatus } from "../../src/warehouse/state/stream-state.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";

const day = (start: string, end: string): Slice => ({ kind: "window", window: { start, end } });
const stats = { requests: 1, retries: 0, rowsFetched: 1, startedAt: new Date("2026-08-07T00:00:00Z") };

function row(uuid: string) {
  const raw = {
    date: "2026-08-01T10:00:00Z",
    from: "1555",
    to: "1666",
    disposition: "answered",
    duration: 5,
    destination: null,
    per_minute: null,
    charge: null,
    sip_trunk: null,
    uuid,
    parent_uuid: null,
    answered_by: null,
  };
  return toLoadRow(cdrsStream, cdrSchema.parse(raw), { direction: "received" });
}

async function load(
  database: TestDatabase,
  account: string,
  runId: number,
  slice: Slice,
  uuids: string[],
  completeWindow = true,
) {
  return loadSlice(database.warehouse, {
    stream: cdrsStream,
    account,
    runId,
    extractedAt: new Date(),
    slice,
    rows: uuids.map(row),
    rejects: [],
    stats,
    completeWindow,
  });
}

describe("run records", () => {
  it("records a run's start and end, with its arguments", async ({ database }) => {
    const db = database.warehouse.db;
    const runId = await startRun(db, {
      command: "run",
      arguments: { streams: ["cdrs"] },
      host: "h1",
      pid: 4321,
    });
    const started = await db
      .selectFrom("etl.runs")
      .selectAll()
      .where("id", "=", runId)
      .executeTakeFirstOrThrow();
    expect(started).toMatchObject({
      command: "run",
      status: "running",
      host: "h1",
      pid: 4321,
      exit_code: null,
    });
    expect(started.arguments).toEqual({ streams: ["cdrs"] });
    await finishRun(db, runId, { status: "partial", exitCode: 1 });
    const finished = await db
      .selectFrom("etl.runs")
      .selectAll()
      .where("id", "=", runId)
      .executeTakeFirstOrThrow();
    expect(finished).toMatchObject({ status: "partial", exit_code: 1 });
    expect(finished.finished_at).toBeInstanceOf(Date);
  });
});

describe("stream state and status", () => {
  it("reports completed-through, gaps, open and failed windows, last run, rows and rejects", async ({
    database,
  }) => {
    const db = database.warehouse.db;
    const account = "status-acct";
    const run1 = await startRun(db, { command: "run", arguments: {}, host: "h", pid: 1 });
    await load(database, account, run1, day("2026-08-01", "2026-08-02"), ["a"]);
    await load(database, account, run1, day("2026-08-02", "2026-08-03"), ["b"]);
    await recordFailedSlice(database.warehouse, {
      runId: run1,
      account,
      stream: cdrsStream,
      slice: day("2026-08-03", "2026-08-04"),
      stats,
      error: new Error("GET /v1/cdr 500 (page 3): Internal error"),
    });
    await load(database, account, run1, day("2026-08-04", "2026-08-05"), ["d"]);
    await load(database, account, run1, day("2026-08-05", "2026-08-06"), ["e"], false);
    await finishRun(db, run1, { status: "partial", exitCode: 1 });
    const run2 = await startRun(db, { command: "run", arguments: {}, host: "h", pid: 2 });
    await recordFailedSlice(database.warehouse, {
      runId: run2,
      account,
      stream: "cdrs",
      slice: day("2026-08-03", "2026-08-04"),
      stats,
      error: new Error("still failing"),
    });
    await loadSlice(database.warehouse, {
      stream: invoicesStream,
      account,
      runId: run2,
      extractedAt: new Date(),
      slice: { kind: "full" },
      rows: [],
      rejects: [
        { raw: { id: "x" }, issues: [] },
        { raw: { id: "y" }, issues: [] },
      ],
      stats,
      completeWindow: true,
    });
    const [first] = await pendingRejects(db, { stream: "invoices", account });
    await markReplayed(db, [first!.id]);

    const statuses = (await streamStatus(db, { tables: landingTables() })).filter(
      (s) => s.account === account,
    );
    expect(statuses.map((s) => s.stream)).toEqual(["cdrs", "invoices"]);
    const [cdrs, invoices] = statuses;
    expect(cdrs).toMatchObject({
      completedWindows: 3,
      firstCompleted: "2026-08-01",
      completedThrough: "2026-08-02",
      lastCompleted: "2026-08-04",
      gaps: [{ start: "2026-08-03", end: "2026-08-04" }],
      rows: 4,
      rejectsPending: 0,
      lastRun: { runId: run2, status: "running", command: "run" },
    });
    expect(cdrs!.openWindows.map((w) => [w.slice, w.status, w.error])).toEqual([
      ["2026-08-03..2026-08-04", "failed", "still failing"],
      ["2026-08-05..2026-08-06", "succeeded", null],
    ]);
    expect(cdrs!.failedWindows.map((w) => [w.start, w.end, w.runId, w.error])).toEqual([
      ["2026-08-03", "2026-08-04", run2, "still failing"],
    ]);
    expect(invoices).toMatchObject({
      completedWindows: 0,
      completedThrough: null,
      openWindows: [],
      rows: 0,
      rejectsPending: 1,
      rejectsTotal: 2,
    });

    // The failed window loads later: it is completed and the run becomes contiguous.
    await load(database, account, run2, day("2026-08-03", "2026-08-04"), ["c"]);
    const [after] = (await streamStatus(db, { tables: landingTables() })).filter(
      (s) => s.account === account,
    );
    expect(after).toMatchObject({ completedThrough: "2026-08-04", gaps: [], failedWindows: [] });
    expect(after!.openWindows.map((w) => w.slice)).toEqual(["2026-08-05..2026-08-06"]);
  });

  it("never shrinks a completed window: a shorter completion at the same start keeps the longer one", async ({
    database,
  }) => {
    const db = database.warehouse.db;
    const account = "wide";
    const stateRow = () =>
      db
        .selectFrom("etl.stream_state")
        .select(["window_end", "run_id"])
        .where("account", "=", account)
        .where("stream", "=", "cdrs")
        .where("window_start", "=", "2026-10-01")
        .executeTakeFirstOrThrow();
    // window_days 7: a nightly run completes a whole week ...
    const weekly = await startRun(db, { command: "run", arguments: {}, host: "h", pid: 1 });
    await load(database, account, weekly, day("2026-10-01", "2026-10-08"), ["w1"]);
    // ... then a backfill --from 2026-10-01 --to 2026-10-02 completes the same start, clipped at --to.
    const backfill = await startRun(db, { command: "backfill", arguments: {}, host: "h", pid: 1 });
    await load(database, account, backfill, day("2026-10-01", "2026-10-03"), ["w1"]);
    expect(await stateRow()).toEqual({ window_end: "2026-10-08", run_id: weekly });
    const [status] = (await streamStatus(db, { tables: landingTables() })).filter(
      (s) => s.account === account,
    );
    expect(status).toMatchObject({ completedThrough: "2026-10-07", lastCompleted: "2026-10-07" });
    // A longer completion at that start still extends it.
    const longer = await startRun(db, { command: "backfill", arguments: {}, host: "h", pid: 1 });
    await load(database, account, longer, day("2026-10-01", "2026-10-10"), ["w1"]);
    expect(await stateRow()).toEqual({ window_end: "2026-10-10", run_id: longer });
  });

  it("forgets completed windows by stream, account and start date", async ({ database }) => {
    const db = database.warehouse.db;
    const runId = await startRun(db, { command: "run", arguments: {}, host: "h", pid: 1 });
    for (const account of ["r1", "r2"]) {
      for (const start of ["2026-09-01", "2026-09-02", "2026-09-03"]) {
        await load(database, account, runId, day(start, `2026-09-0${Number(start.slice(-1)) + 1}`), [start]);
      }
    }
    expect(await resetStreamState(db, { streams: ["cdrs"], accounts: ["r1"], from: "2026-09-02" })).toBe(2);
    expect(await completedWindows(db, "r1", "cdrs")).toEqual(new Set(["2026-09-01"]));
    expect(await completedWindows(db, "r2", "cdrs")).toEqual(
      new Set(["2026-09-01", "2026-09-02", "2026-09-03"]),
    );
    expect(await resetStreamState(db, { streams: ["invoices"] })).toBe(0);
    expect(await resetStreamState(db, { streams: ["cdrs"], accounts: ["r2"] })).toBe(3);
    expect(await completedWindows(db, "r2", "cdrs")).toEqual(new Set());
  });
});

describe("rejects", () => {
  it("lists the newest first, filters, and replays only pending ones", async ({ database }) => {
    const db = database.warehouse.db;
    const runId = await startRun(db, { command: "run", arguments: {}, host: "h", pid: 1 });
    const account = "rej";
    await loadSlice(database.warehouse, {
      stream: cdrsStream,
      account,
      runId,
      extractedAt: new Date(),
      slice: day("2026-08-01", "2026-08-02"),
      rows: [],
      rejects: [1, 2, 3].map((n) => ({ raw: { n }, issues: [{ path: ["n"], message: `bad ${n}` }] })),
      stats,
      completeWindow: false,
    });
    const listed = await listRejects(db, { account, limit: 2 });
    expect(listed.map((r) => r.raw)).toEqual([{ n: 3 }, { n: 2 }]);
    expect(listed[0]).toMatchObject({
      stream: "cdrs",
      slice: "2026-08-01..2026-08-02",
      runId,
      replayedAt: null,
    });
    expect(await listRejects(db, { account, stream: "invoices", limit: 10 })).toEqual([]);
    const pending = await pendingRejects(db, { stream: "cdrs", account });
    expect(pending.map((r) => r.raw)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await markReplayed(db, [pending[0]!.id, pending[2]!.id])).toBe(2);
    expect(await markReplayed(db, [pending[0]!.id])).toBe(0);
    expect((await pendingRejects(db, { account })).map((r) => r.raw)).toEqual([{ n: 2 }]);
    const all = await listRejects(db, { account, limit: 10 });
    expect(all.filter((r) => r.replayedAt !== null)).toHaveLength(2);
    expect(await listRejects(db, { account, limit: 10, pendingOnly: true })).toHaveLength(1);
  });
});
