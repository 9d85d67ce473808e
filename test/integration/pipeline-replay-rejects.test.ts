import { shortLinkMetricSchema } from "@telecom-etl/platform";
import { sql } from "kysely";
import { KnownSecrets } from "../../src/core/known-secrets.js";
import { silentLogger } from "../../src/core/log.js";
import { parseRow } from "../../src/pipeline/extract/parse-rows.js";
import { replayRejects } from "../../src/pipeline/run/replay-rejects.js";
import { cdrsStream } from "../../src/streams/cdrs.js";
import { toLoadRow } from "../../src/streams/load-row.js";
import { landingTables } from "../../src/streams/registry.js";
import { shortLinkMetricsStream } from "../../src/streams/short-link-metrics.js";
import type { Slice } from "../../src/streams/stream-definition.js";
import { type LoadSliceInput, loadSlice } from "../../src/warehouse/load/load-slice.js";
import { markReplayed, pendingRejects } from "../../src/warehouse/state/rejects.js";
import { finishRun, startRun } from "../../src/warehouse/state/run-records.js";
import { recordFailedSlice } from "../../src/warehouse/state/slice-records.js";
import { streamStatus } from "../../src/warehouse/state/stream-state.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";

const ACCOUNT = "replay";
const AUG1: Slice = { kind: "window", window: { start: "2026-08-01", end: "2026-08-02" } };
const stats = { requests: 1, retries: 0, rowsFetched: 3, startedAt: new Date("2026-08-03T00:00:00Z") };

function click(createdAt: string, userId: number) {
  return {
    latitude: 52.5,
    longitude: 13.4,
    operating_system: "Android",
    browser: "Chrome",
    language: "de",
    phone: "15550001",
    utm_campaign: "summer",
    created_at: createdAt,
    link_hash: "abc",
    user_id: userId,
  };
}

const loadRow = (raw: ReturnType<typeof click>) =>
  toLoadRow(shortLinkMetricsStream, shortLinkMetricSchema.parse(raw), {});

/** A click as an older schema rejected it. */
const oldSchemaReject = (raw: ReturnType<typeof click>) => ({
  raw,
  issues: [{ path: "user_id", code: "custom", message: "old schema" }],
});

/** The load of short-link metrics of `account` by a new run of `command`: nothing loaded or rejected unless `fields` say so. */
async function clicksLoad(
  database: TestDatabase,
  account: string,
  fields: Partial<LoadSliceInput>,
  command = "run",
): Promise<LoadSliceInput> {
  const runId = await startRun(database.warehouse.db, { command, arguments: {}, host: "test", pid: 1 });
  return {
    stream: shortLinkMetricsStream,
    account,
    runId,
    extractedAt: new Date(),
    slice: AUG1,
    rows: [],
    rejects: [],
    stats,
    completeWindow: false,
    ...fields,
  };
}

async function windowRows(database: TestDatabase) {
  const result = await sql<{ ordinal: number; user_id: number }>`
    SELECT _row_ordinal AS ordinal, user_id::int AS user_id FROM platform.short_link_metrics
    WHERE _account = ${ACCOUNT} ORDER BY user_id`.execute(database.warehouse.db);
  return result.rows;
}

async function stateOfWindow(database: TestDatabase) {
  return database.warehouse.db
    .selectFrom("etl.stream_state")
    .select(["window_end", "run_id", "completed_at"])
    .where("account", "=", ACCOUNT)
    .where("stream", "=", "short_link_metrics")
    .execute();
}

describe("rejects replay of a replace_window stream", () => {
  it("adds the replayed row beside the window's good rows, leaves completion alone, and a later load converges", async ({
    database,
  }) => {
    const db = database.warehouse.db;
    const good = [click("2026-08-01 09:00:00.000Z", 1), click("2026-08-01 10:00:00.000Z", 2)];
    // Valid under today's schema; an older schema rejected it (say, a stricter user_id).
    const once = click("2026-08-01 11:00:00.000Z", 3);
    const run1 = await startRun(db, { command: "run", arguments: {}, host: "test", pid: 1 });
    await loadSlice(database.warehouse, {
      stream: shortLinkMetricsStream,
      account: ACCOUNT,
      runId: run1,
      extractedAt: new Date(),
      slice: AUG1,
      rows: good.map(loadRow),
      rejects: [oldSchemaReject(once)],
      stats,
      completeWindow: true,
    });
    await finishRun(db, run1, { status: "quarantined", exitCode: 3 });
    const completion = await stateOfWindow(database);
    expect(completion).toHaveLength(1);

    const replay = await replayRejects(
      { warehouse: database.warehouse, log: silentLogger, host: "test" },
      { stream: "short_link_metrics" },
    );
    expect(replay.summaries).toEqual([
      { account: ACCOUNT, stream: "short_link_metrics", pending: 1, loaded: 1, stillRejected: 0 },
    ]);
    expect(await windowRows(database)).toEqual([
      { ordinal: 1, user_id: 1 },
      { ordinal: 2, user_id: 2 },
      { ordinal: 3, user_id: 3 },
    ]);
    expect(await stateOfWindow(database)).toEqual(completion);
    expect(await pendingRejects(db, { stream: "short_link_metrics" })).toEqual([]);
    const replaySlice = await db
      .selectFrom("etl.run_slices")
      .select(["rows_inserted", "rows_deleted"])
      .where("run_id", "=", replay.runId)
      .executeTakeFirstOrThrow();
    expect(replaySlice).toEqual({ rows_inserted: 1, rows_deleted: 0 });

    // A second replay finds nothing to do.
    const again = await replayRejects(
      { warehouse: database.warehouse, log: silentLogger, host: "test" },
      { stream: "short_link_metrics" },
    );
    expect(again.summaries).toEqual([]);
    expect(await windowRows(database)).toHaveLength(3);

    // The next normal load of the window replaces all of it, replayed row included, with what the
    // platform serves now: no duplicate of the replayed row, and re-running changes nothing.
    for (const served of [
      [...good, once],
      [...good, once],
      [good[1]!, once],
    ]) {
      const run = await startRun(db, { command: "run", arguments: {}, host: "test", pid: 1 });
      await loadSlice(database.warehouse, {
        stream: shortLinkMetricsStream,
        account: ACCOUNT,
        runId: run,
        extractedAt: new Date(),
        slice: AUG1,
        rows: served.map(loadRow),
        rejects: [],
        stats,
        completeWindow: true,
      });
      await finishRun(db, run, { status: "succeeded", exitCode: 0 });
      expect((await windowRows(database)).map((r) => r.user_id)).toEqual(served.map((r) => r.user_id));
    }
  });

  it("a replay into an open window does not hide that window's failure from status", async ({ database }) => {
    const db = database.warehouse.db;
    const account = "replay-open";
    const aug2: Slice = { kind: "window", window: { start: "2026-08-02", end: "2026-08-03" } };
    const run1 = await startRun(db, { command: "run", arguments: {}, host: "test", pid: 1 });
    await loadSlice(database.warehouse, {
      stream: shortLinkMetricsStream,
      account,
      runId: run1,
      extractedAt: new Date(),
      slice: aug2,
      rows: [loadRow(click("2026-08-02 09:00:00.000Z", 1))],
      rejects: [{ raw: click("2026-08-02 10:00:00.000Z", 2), issues: [] }],
      stats,
      completeWindow: false,
    });
    await finishRun(db, run1, { status: "quarantined", exitCode: 3 });
    const run2 = await startRun(db, { command: "run", arguments: {}, host: "test", pid: 1 });
    await recordFailedSlice(database.warehouse, {
      runId: run2,
      account,
      stream: shortLinkMetricsStream,
      slice: aug2,
      stats,
      error: new Error("HTTP 503 after 6 attempts"),
    });
    await finishRun(db, run2, { status: "partial", exitCode: 1 });
    const replay = await replayRejects(
      { warehouse: database.warehouse, log: silentLogger, host: "test" },
      { stream: "short_link_metrics", account },
    );
    expect(replay.summaries[0]).toMatchObject({ loaded: 1, stillRejected: 0 });
    const [status] = (await streamStatus(db, { tables: landingTables() })).filter(
      (s) => s.account === account,
    );
    expect(status!.failedWindows.map((w) => [w.slice, w.runId, w.error])).toEqual([
      ["2026-08-02..2026-08-03", run2, "HTTP 503 after 6 attempts"],
    ]);
    expect(status).toMatchObject({ completedWindows: 0, rows: 2, lastRun: { runId: replay.runId } });
  });

  it("appends a replay once: the same load again (a retry after a COMMIT whose answer was lost) writes nothing", async ({
    database,
  }) => {
    const db = database.warehouse.db;
    const account = "replay-retried";
    const late = click("2026-08-01 12:00:00.000Z", 7);
    const first = await clicksLoad(database, account, {
      rows: [loadRow(click("2026-08-01 09:00:00.000Z", 6))],
      rejects: [oldSchemaReject(late)],
      completeWindow: true,
    });
    await loadSlice(database.warehouse, first);
    const [pending] = await pendingRejects(db, { stream: "short_link_metrics", account });
    const fields = { rows: [loadRow(late)], append: true, replayedRejectIds: [pending!.id] };
    const replay = await clicksLoad(database, account, fields, "rejects replay");
    expect(await loadSlice(database.warehouse, replay)).toMatchObject({ inserted: 1 });
    // The retry of a transaction that did commit: its rejects are replayed already, so it writes nothing.
    expect(await loadSlice(database.warehouse, replay)).toMatchObject({ inserted: 0 });
    const users = await sql<{ user_id: number }>`
      SELECT user_id::int AS user_id FROM platform.short_link_metrics WHERE _account = ${account}
      ORDER BY user_id`.execute(db);
    expect(users.rows.map((r) => r.user_id)).toEqual([6, 7]);

    // Two rejects, one of them replayed by another process meanwhile: nothing is written.
    const more = [click("2026-08-01 13:00:00.000Z", 8), click("2026-08-01 14:00:00.000Z", 9)];
    await loadSlice(
      database.warehouse,
      await clicksLoad(database, account, {
        // Another window's read (an empty one: replacing August 1st would empty it).
        slice: { kind: "window", window: { start: "2026-08-02", end: "2026-08-03" } },
        rejects: more.map(oldSchemaReject),
      }),
    );
    const ids = (await pendingRejects(db, { stream: "short_link_metrics", account })).map((r) => r.id);
    expect(ids).toHaveLength(2);
    await markReplayed(db, [ids[0]!]);
    await expect(
      loadSlice(database.warehouse, { ...replay, rows: more.map(loadRow), replayedRejectIds: ids }),
    ).rejects.toThrow(/1 of the 2 rejects this replay loads were replayed by another process meanwhile/);
    const after = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM platform.short_link_metrics WHERE _account = ${account}`.execute(db);
    expect(after.rows[0]!.n).toBe(2);
  });

  it("a read of today's grown window takes over the pending rejects of its narrower reads: one pending copy, none once the row loads", async ({
    database,
  }) => {
    const account = "grown-window";
    const bad = click("2026-08-01 15:00:00.000Z", 11);
    const read = async (end: string, rejected: boolean) => {
      const load = await clicksLoad(database, account, {
        slice: { kind: "window", window: { start: "2026-08-01", end } },
        ...(rejected ? { rejects: [oldSchemaReject(bad)] } : { rows: [loadRow(bad)] }),
      });
      await loadSlice(database.warehouse, load);
      const pending = await pendingRejects(database.warehouse.db, { stream: "short_link_metrics", account });
      return pending.map((r) => r.slice);
    };
    // Today's window of a 4-day grid, on August 2nd and 3rd: rejected both times, pending once.
    expect(await read("2026-08-03", true)).toEqual(["2026-08-01..2026-08-03"]);
    expect(await read("2026-08-04", true)).toEqual(["2026-08-01..2026-08-04"]);
    // A copy pending under the narrower label, as a read before this rule left it: kept once.
    await sql`INSERT INTO etl.rejects (run_id, account, stream, slice, raw, issues, implied)
      SELECT run_id, account, stream, '2026-08-01..2026-08-03', raw, issues, implied FROM etl.rejects
      WHERE account = ${account}`.execute(database.warehouse.db);
    expect(await read("2026-08-04", true)).toEqual(["2026-08-01..2026-08-04"]);
    // On August 4th the platform serves it right: it loads, and no pending copy is left to replay.
    expect(await read("2026-08-05", false)).toEqual([]);
  });

  it("refuses an append that would complete the window", async ({ database }) => {
    const runId = await startRun(database.warehouse.db, {
      command: "rejects replay",
      arguments: {},
      host: "test",
      pid: 1,
    });
    await expect(
      loadSlice(database.warehouse, {
        stream: shortLinkMetricsStream,
        account: "other",
        runId,
        extractedAt: new Date(),
        slice: AUG1,
        rows: [loadRow(click("2026-08-01 09:00:00.000Z", 9))],
        rejects: [],
        stats,
        completeWindow: true,
        append: true,
      }),
    ).rejects.toThrow(/cannot complete the window/);
  });
});

describe("the values a request implied for a rejected row", () => {
  it("are stored in their own column, not in the issues, and a replay loads the row with them", async ({
    database,
  }) => {
    const db = database.warehouse.db;
    const account = "implied";
    const cdr = {
      date: "2026-08-01T10:00:00Z",
      from: "15550001111",
      to: "15550002222",
      disposition: "answered",
      duration: 61,
      destination: null,
      per_minute: null,
      charge: null,
      sip_trunk: null,
      uuid: "implied-0001",
      parent_uuid: null,
      answered_by: null,
    };
    // Rejected by today's schema (duration as text), served by a `type=received` request.
    const parsed = parseRow(
      cdrsStream,
      { ...cdr, duration: "61" },
      { direction: "received" },
      new KnownSecrets(),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    const runId = await startRun(db, { command: "run", arguments: {}, host: "test", pid: 1 });
    await loadSlice(database.warehouse, {
      stream: cdrsStream,
      account,
      runId,
      extractedAt: new Date(),
      slice: AUG1,
      rows: [],
      rejects: [parsed.reject],
      stats,
      completeWindow: false,
    });
    await finishRun(db, runId, { status: "quarantined", exitCode: 3 });
    const stored = await db
      .selectFrom("etl.rejects")
      .select(["id", "implied", "issues"])
      .where("account", "=", account)
      .executeTakeFirstOrThrow();
    expect(stored.implied).toEqual({ direction: "received" });
    expect(JSON.stringify(stored.issues)).not.toContain("implied");
    const [record] = await pendingRejects(db, { account });
    expect(record!.implied).toEqual({ direction: "received" });

    // As if the schema were fixed: the raw row becomes valid, and the replay needs the direction.
    await db
      .updateTable("etl.rejects")
      .set({ raw: JSON.stringify(cdr) })
      .where("id", "=", stored.id)
      .execute();
    const replayedAt = Date.parse("2031-01-02T03:04:05Z");
    const replay = await replayRejects(
      { warehouse: database.warehouse, log: silentLogger, host: "test", clock: { now: () => replayedAt } },
      { stream: "cdrs", account },
    );
    expect(replay.summaries[0]).toMatchObject({ loaded: 1, stillRejected: 0 });
    const loaded = await sql<{ direction: string; extracted: Date }>`
      SELECT direction, _extracted_at AS extracted FROM platform.cdrs WHERE _account = ${account}`.execute(
      db,
    );
    expect(loaded.rows).toEqual([{ direction: "received", extracted: new Date(replayedAt) }]);
    // The injected clock, not the wall clock, stamps the replay's slice record too.
    const slice = await db
      .selectFrom("etl.run_slices")
      .select("started_at")
      .where("run_id", "=", replay.runId)
      .executeTakeFirstOrThrow();
    expect(slice.started_at).toEqual(new Date(replayedAt));
  });

  it("a request that implied nothing stores null", async ({ database }) => {
    const db = database.warehouse.db;
    const runId = await startRun(db, { command: "run", arguments: {}, host: "test", pid: 1 });
    const parsed = parseRow(shortLinkMetricsStream, { user_id: "x" }, {}, new KnownSecrets());
    if (parsed.ok) throw new Error("expected a reject");
    await loadSlice(database.warehouse, {
      stream: shortLinkMetricsStream,
      account: "implied-none",
      runId,
      extractedAt: new Date(),
      slice: AUG1,
      rows: [],
      rejects: [parsed.reject],
      stats,
      completeWindow: false,
    });
    const stored = await db
      .selectFrom("etl.rejects")
      .select("implied")
      .where("account", "=", "implied-none")
      .executeTakeFirstOrThrow();
    expect(stored.implied).toBeNull();
  });
});
