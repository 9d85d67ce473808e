import { cdrSchema, invoiceSchema, shortLinkMetricSchema } from "@telecom-etl/platform";
import { sql } from "kysely";
import { SliceError } from "../../src/core/errors.js";
import { cdrsStream } from "../../src/streams/cdrs.js";
import { invoicesStream } from "../../src/streams/invoices.js";
import { type LoadRow, toLoadRow } from "../../src/streams/load-row.js";
import type { PlatformTables } from "../../src/streams/platform-tables.js";
import { shortLinkMetricsStream } from "../../src/streams/short-link-metrics.js";
import type { Slice, StreamDefinition } from "../../src/streams/stream-definition.js";
import { type LoadSliceInput, loadSlice } from "../../src/warehouse/load/load-slice.js";
import { pendingRejects } from "../../src/warehouse/state/rejects.js";
import { startRun } from "../../src/warehouse/state/run-records.js";
import { completedWindows } from "../../src/warehouse/state/stream-state.js";
import { cdr, cdrRows } from "../helpers/cdr-rows.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";

const day = (start: string, end: string): Slice => ({ kind: "window", window: { start, end } });
const AUG1 = day("2026-08-01", "2026-08-02");

function click(createdAt: string, overrides: Record<string, unknown> = {}): LoadRow {
  const raw = {
    latitude: 40.7128,
    longitude: -74.006,
    operating_system: "iOS",
    browser: "Safari",
    language: "en-US",
    phone: "12025550100",
    utm_campaign: "spring",
    created_at: createdAt,
    link_hash: "abc123",
    user_id: 42,
    ...overrides,
  };
  return toLoadRow(shortLinkMetricsStream, shortLinkMetricSchema.parse(raw), {});
}

const stats = { requests: 2, retries: 0, rowsFetched: 0, startedAt: new Date("2026-08-02T01:00:00Z") };

async function newRun(database: TestDatabase): Promise<number> {
  return startRun(database.warehouse.db, { command: "test", arguments: {}, host: "test-host", pid: 1 });
}

function input(
  stream: StreamDefinition,
  account: string,
  runId: number,
  slice: Slice,
  rows: readonly LoadRow[],
  extra: Partial<LoadSliceInput> = {},
): LoadSliceInput {
  return {
    stream,
    account,
    runId,
    extractedAt: new Date("2026-08-02T01:02:03.456Z"),
    slice,
    rows,
    rejects: [],
    stats: { ...stats, rowsFetched: rows.length },
    completeWindow: true,
    ...extra,
  };
}

async function count(database: TestDatabase, text: string): Promise<number> {
  const result = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.raw(text)}`.execute(
    database.warehouse.db,
  );
  return result.rows[0]!.n;
}

describe("loadSlice, merge streams", () => {
  it("counts inserted, updated and unchanged rows exactly over three loads", async ({ database }) => {
    const account = "merge-counts";
    const run1 = await newRun(database);
    const first = await loadSlice(
      database.warehouse,
      input(cdrsStream, account, run1, AUG1, cdrRows([cdr("a"), cdr("b"), cdr("c")])),
    );
    expect(first).toMatchObject({ inserted: 3, updated: 0, unchanged: 0, deleted: 0, rejected: 0 });

    const run2 = await newRun(database);
    const second = await loadSlice(
      database.warehouse,
      input(
        cdrsStream,
        account,
        run2,
        AUG1,
        cdrRows([cdr("a"), cdr("b", { charge: "0.0300" }), cdr("c"), cdr("d")]),
      ),
    );
    expect(second).toMatchObject({ inserted: 1, updated: 1, unchanged: 2 });

    const run3 = await newRun(database);
    const third = await loadSlice(
      database.warehouse,
      input(
        cdrsStream,
        account,
        run3,
        AUG1,
        cdrRows([cdr("a"), cdr("b", { charge: "0.0300" }), cdr("c"), cdr("d")]),
      ),
    );
    expect(third).toMatchObject({ inserted: 0, updated: 0, unchanged: 4 });

    const rows = await sql<{ uuid: string; charge: string; _run_id: number }>`
      SELECT uuid, charge::text, _run_id FROM platform.cdrs WHERE _account = ${account} ORDER BY uuid`.execute(
      database.warehouse.db,
    );
    // Unchanged rows keep the run that last changed them.
    expect(rows.rows).toEqual([
      { uuid: "a", charge: "0.0200", _run_id: run1 },
      { uuid: "b", charge: "0.0300", _run_id: run2 },
      { uuid: "c", charge: "0.0200", _run_id: run1 },
      { uuid: "d", charge: "0.0200", _run_id: run2 },
    ]);
    const slices = await database.warehouse.db
      .selectFrom("etl.run_slices")
      .select(["run_id", "rows_inserted", "rows_updated", "rows_unchanged", "status", "slice"])
      .where("account", "=", account)
      .orderBy("id")
      .execute();
    expect(slices).toEqual([
      {
        run_id: run1,
        rows_inserted: 3,
        rows_updated: 0,
        rows_unchanged: 0,
        status: "succeeded",
        slice: "2026-08-01..2026-08-02",
      },
      {
        run_id: run2,
        rows_inserted: 1,
        rows_updated: 1,
        rows_unchanged: 2,
        status: "succeeded",
        slice: "2026-08-01..2026-08-02",
      },
      {
        run_id: run3,
        rows_inserted: 0,
        rows_updated: 0,
        rows_unchanged: 4,
        status: "succeeded",
        slice: "2026-08-01..2026-08-02",
      },
    ]);
  });

  it("treats a change of an unknown field (_extra) as an update", async ({ database }) => {
    const account = "extra-change";
    const runId = await newRun(database);
    await loadSlice(
      database.warehouse,
      input(cdrsStream, account, runId, AUG1, cdrRows([cdr("x", { tag: 1 })])),
    );
    const again = await loadSlice(
      database.warehouse,
      input(cdrsStream, account, runId, AUG1, cdrRows([cdr("x", { tag: 2 })])),
    );
    expect(again).toMatchObject({ inserted: 0, updated: 1, unchanged: 0 });
    const stored = await sql<{
      _extra: unknown;
    }>`SELECT _extra FROM platform.cdrs WHERE _account = ${account}`.execute(database.warehouse.db);
    expect(stored.rows[0]!._extra).toEqual({ tag: 2 });
  });

  it("keeps the directions of one call apart (the same uuid placed and received)", async ({ database }) => {
    const account = "directions";
    const runId = await newRun(database);
    const rows = [
      ...cdrRows([cdr("both", { duration: 2 }), cdr("solo")], "placed"),
      ...cdrRows([cdr("both", { duration: 3 })], "received"),
    ];
    const result = await loadSlice(database.warehouse, input(cdrsStream, account, runId, AUG1, rows));
    expect(result).toMatchObject({ inserted: 3, updated: 0, unchanged: 0 });
    const stored = await sql<{ direction: string; uuid: string; duration: number }>`
      SELECT direction, uuid, duration FROM platform.cdrs WHERE _account = ${account} ORDER BY direction, uuid`.execute(
      database.warehouse.db,
    );
    expect(stored.rows).toEqual([
      { direction: "placed", uuid: "both", duration: 2 },
      { direction: "placed", uuid: "solo", duration: 61 },
      { direction: "received", uuid: "both", duration: 3 },
    ]);
  });

  it("falls back to the merge when a key of a window without rows exists under another window", async ({
    database,
  }) => {
    const account = "moved";
    const runId = await newRun(database);
    await loadSlice(
      database.warehouse,
      input(cdrsStream, account, runId, AUG1, cdrRows([cdr("m1"), cdr("m2")])),
    );
    const aug2 = day("2026-08-02", "2026-08-03");
    const moved = cdrRows([
      cdr("n1", { date: "2026-08-02T01:00:00Z" }),
      cdr("m2", { date: "2026-08-02T02:00:00Z" }),
    ]);
    const result = await loadSlice(database.warehouse, input(cdrsStream, account, runId, aug2, moved));
    expect(result).toMatchObject({ inserted: 1, updated: 1, unchanged: 0 });
    const stored = await sql<{ uuid: string; date: Date }>`
      SELECT uuid, date FROM platform.cdrs WHERE _account = ${account} ORDER BY uuid`.execute(
      database.warehouse.db,
    );
    expect(stored.rows).toEqual([
      { uuid: "m1", date: new Date("2026-08-01T10:00:00Z") },
      { uuid: "m2", date: new Date("2026-08-02T02:00:00Z") },
      { uuid: "n1", date: new Date("2026-08-02T01:00:00Z") },
    ]);
  });

  it.for<[string, boolean]>([
    ["straight into the landing table", true],
    ["through the stage", false],
  ])(
    "keeps every value intact through COPY %s: quotes, tabs, backslashes, newlines, unicode, nulls, jsonb",
    async ([_, insertFastPath], { database }) => {
      const account = `weird-${insertFastPath}`;
      const runId = await newRun(database);
      const nasty = `q"uo'te\ttab\\back\\\\slash\nnew\r\nline \\N \\t ☎️ 電話 \u00e9\u0301 \u2028 end`;
      const raw = cdr("weird-1", {
        from: nasty,
        to: "",
        destination: "\\N",
        sip_trunk: null,
        per_minute: null,
        charge: "-123456789012345678901234567890.000000000000000000000001",
        forward_fee: "0.000001",
        date: "2026-08-01T23:59:59.999+05:30",
        answered_by: null,
        extra_text: nasty,
        extra_nested: { list: [1, "two", null, { deep: 'a\\b"c\n' }], empty: {}, flag: false },
        extra_null: null,
      });
      const rows = cdrRows([
        raw,
        cdr("weird-2", { date: "2026-08-01T00:00:00Z", destination: null, parent_uuid: "weird-1" }),
      ]);
      await loadSlice(database.warehouse, input(cdrsStream, account, runId, AUG1, rows, { insertFastPath }));
      const stored = await sql<Record<string, unknown>>`
      SELECT uuid, date, from_number, to_number, destination, sip_trunk, per_minute::text, charge::text,
             forward_fee::text, answered_by, parent_uuid, _extra
      FROM platform.cdrs WHERE _account = ${account} ORDER BY uuid`.execute(database.warehouse.db);
      expect(stored.rows[0]).toEqual({
        uuid: "weird-1",
        date: new Date("2026-08-01T18:29:59.999Z"),
        from_number: nasty,
        to_number: "",
        destination: "\\N",
        sip_trunk: null,
        per_minute: null,
        charge: "-123456789012345678901234567890.000000000000000000000001",
        forward_fee: "0.000001",
        answered_by: null,
        parent_uuid: null,
        _extra: {
          extra_text: nasty,
          extra_nested: { list: [1, "two", null, { deep: 'a\\b"c\n' }], empty: {}, flag: false },
          extra_null: null,
        },
      });
      expect(stored.rows[1]).toMatchObject({
        uuid: "weird-2",
        date: new Date("2026-08-01T00:00:00Z"),
        destination: null,
        parent_uuid: "weird-1",
        _extra: null,
      });
      // A second identical load finds nothing changed: the round trip is exact.
      const again = await loadSlice(database.warehouse, input(cdrsStream, account, runId, AUG1, rows));
      expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: 2 });
    },
  );

  it("loads a full-refresh slice without touching stream state", async ({ database }) => {
    const account = "invoices";
    const runId = await newRun(database);
    const rows = [
      { id: 7, from_date: "2026-07-01", to_date: "2026-07-31", amount: "12.3400" },
      { id: 8, from_date: "2026-08-01", to_date: "2026-08-31", amount: "0.00", currency: "USD" },
    ].map((raw) => toLoadRow(invoicesStream, invoiceSchema.parse(raw), {}));
    const result = await loadSlice(
      database.warehouse,
      input(invoicesStream, account, runId, { kind: "full" }, rows),
    );
    expect(result).toMatchObject({ inserted: 2, updated: 0, unchanged: 0 });
    const stored = await database.warehouse.db
      .withTables<PlatformTables>()
      .selectFrom("platform.invoices")
      .select(["id", "from_date", "to_date", "amount", "_extra"])
      .where("_account", "=", account)
      .orderBy("id")
      .execute();
    expect(stored).toEqual([
      { id: 7, from_date: "2026-07-01", to_date: "2026-07-31", amount: "12.3400", _extra: null },
      { id: 8, from_date: "2026-08-01", to_date: "2026-08-31", amount: "0.00", _extra: { currency: "USD" } },
    ]);
    expect(await completedWindows(database.warehouse.db, account, "invoices")).toEqual(new Set());
    const empty = await loadSlice(
      database.warehouse,
      input(invoicesStream, account, runId, { kind: "full" }, []),
    );
    expect(empty).toMatchObject({ inserted: 0, updated: 0, unchanged: 0, deleted: 0 });
  });
});

describe("loadSlice, replace_window streams", () => {
  it("replaces exactly the window's rows and converges on re-run", async ({ database }) => {
    const account = "clicks";
    const runId = await newRun(database);
    const aug2 = day("2026-08-02", "2026-08-03");
    await loadSlice(
      database.warehouse,
      input(shortLinkMetricsStream, account, runId, aug2, [click("2026-08-02 09:00:00.000Z")]),
    );
    const firstRows = [
      click("2026-08-01 10:00:00.000Z"),
      click("2026-08-01 08:00:00.500Z", { browser: "Chrome" }),
      click("2026-08-01 23:59:59.999Z", { user_id: 7, referrer: "sms" }),
      click("2026-08-02 00:00:00.000Z"), // next window's row: left to that window
    ];
    const first = await loadSlice(
      database.warehouse,
      input(shortLinkMetricsStream, account, runId, AUG1, firstRows),
    );
    expect(first).toMatchObject({ inserted: 3, deleted: 0, outsideWindow: 1 });
    const read = async () =>
      (
        await sql<Record<string, unknown>>`
          SELECT created_date, _row_ordinal, created_at, browser, user_id, _extra FROM platform.short_link_metrics
          WHERE _account = ${account} ORDER BY created_date, _row_ordinal`.execute(database.warehouse.db)
      ).rows;
    const afterFirst = await read();
    expect(afterFirst.map((r) => [r.created_date, r._row_ordinal, r.browser])).toEqual([
      ["2026-08-01", 1, "Chrome"],
      ["2026-08-01", 2, "Safari"],
      ["2026-08-01", 3, "Safari"],
      ["2026-08-02", 1, "Safari"],
    ]);
    expect(afterFirst[2]).toMatchObject({ user_id: 7, _extra: { referrer: "sms" } });

    const rerun = await loadSlice(
      database.warehouse,
      input(shortLinkMetricsStream, account, runId, AUG1, [...firstRows].reverse()),
    );
    // The same rows again: rewritten, but nothing inserted or deleted by content.
    expect(rerun).toMatchObject({ inserted: 0, deleted: 0, unchanged: 3 });
    expect(await read()).toEqual(afterFirst);

    const shrunk = await loadSlice(
      database.warehouse,
      input(shortLinkMetricsStream, account, runId, AUG1, [click("2026-08-01 12:00:00.000Z")]),
    );
    expect(shrunk).toMatchObject({ inserted: 1, deleted: 3 });
    expect(await count(database, `platform.short_link_metrics WHERE _account = '${account}'`)).toBe(2);
    const emptied = await loadSlice(
      database.warehouse,
      input(shortLinkMetricsStream, account, runId, AUG1, []),
    );
    expect(emptied).toMatchObject({ inserted: 0, deleted: 1 });
    expect((await read()).map((r) => r.created_date)).toEqual(["2026-08-02"]);
  });
});

describe("loadSlice, rejects, state and atomicity", () => {
  it("stores rejects with the raw JSON and the zod issues, and still loads the valid rows", async ({
    database,
  }) => {
    const account = "rejects";
    const runId = await newRun(database);
    const bad = cdr("bad", { duration: "sixty", charge: 0.02 });
    const parsed = cdrSchema.safeParse(bad);
    expect(parsed.success).toBe(false);
    const issues = parsed.error!.issues;
    const result = await loadSlice(
      database.warehouse,
      input(cdrsStream, account, runId, AUG1, cdrRows([cdr("good")]), {
        rejects: [
          { raw: bad, issues },
          { raw: "not even an object\t\\", issues: [{ message: "x" }] },
        ],
      }),
    );
    expect(result).toMatchObject({ inserted: 1, rejected: 2 });
    const stored = await pendingRejects(database.warehouse.db, { stream: "cdrs", account });
    expect(stored.map((r) => [r.runId, r.slice, r.raw])).toEqual([
      [runId, "2026-08-01..2026-08-02", bad],
      [runId, "2026-08-01..2026-08-02", "not even an object\t\\"],
    ]);
    expect(stored[0]!.issues).toEqual(JSON.parse(JSON.stringify(issues)));
    const slice = await database.warehouse.db
      .selectFrom("etl.run_slices")
      .select(["rows_rejected", "rows_fetched"])
      .where("account", "=", account)
      .executeTakeFirstOrThrow();
    expect(slice.rows_rejected).toBe(2);
  });

  it("re-reading a window converges its pending rejects to what that read rejected", async ({ database }) => {
    const account = "rejects-converge";
    const rejectOf = (uuid: string, direction = "placed") => ({
      raw: cdr(uuid, { duration: "long" }),
      issues: [{ path: ["duration"], message: `bad ${uuid}` }],
      implied: { direction },
    });
    const pending = async () =>
      (await pendingRejects(database.warehouse.db, { stream: "cdrs", account })).map((r) => ({
        id: r.id,
        uuid: (r.raw as { uuid: string }).uuid,
        direction: (r.implied as { direction: string }).direction,
        runId: r.runId,
      }));
    const load = async (rejects: ReturnType<typeof rejectOf>[]) => {
      const runId = await newRun(database);
      await loadSlice(database.warehouse, input(cdrsStream, account, runId, AUG1, [], { rejects }));
      return runId;
    };

    const run1 = await load([rejectOf("a"), rejectOf("b"), rejectOf("b"), rejectOf("b", "received")]);
    const first = await pending();
    expect(first.map((r) => [r.uuid, r.direction, r.runId])).toEqual([
      ["a", "placed", run1],
      ["b", "placed", run1],
      ["b", "received", run1],
    ]);

    const run2 = await load([rejectOf("b"), rejectOf("c")]);
    const second = await pending();
    expect(second.map((r) => [r.uuid, r.direction, r.runId])).toEqual([
      ["b", "placed", run2],
      ["c", "placed", run2],
    ]);
    expect(second[0]!.id).toBe(first[1]!.id);

    await load([rejectOf("b"), rejectOf("c")]);
    expect((await pending()).map((r) => r.id)).toEqual(second.map((r) => r.id));

    await load([]);
    expect(await pending()).toEqual([]);
  });

  it("marks the window completed only when asked, in the load's transaction", async ({ database }) => {
    const account = "state";
    const runId = await newRun(database);
    const aug2 = day("2026-08-02", "2026-08-03");
    await loadSlice(database.warehouse, input(cdrsStream, account, runId, AUG1, cdrRows([cdr("s1")])));
    await loadSlice(
      database.warehouse,
      input(cdrsStream, account, runId, aug2, cdrRows([cdr("s2")]), { completeWindow: false }),
    );
    expect(await completedWindows(database.warehouse.db, account, "cdrs")).toEqual(new Set(["2026-08-01"]));
    const state = await database.warehouse.db
      .selectFrom("etl.stream_state")
      .selectAll()
      .where("account", "=", account)
      .execute();
    expect(state).toMatchObject([
      { stream: "cdrs", window_start: "2026-08-01", window_end: "2026-08-02", run_id: runId },
    ]);
  });

  it.for<[string, boolean]>([
    ["straight into the landing table", true],
    ["through the stage", false],
  ])(
    "rolls the whole slice back when a value is invalid (%s): no rows, rejects, record or state",
    async ([_, insertFastPath], { database }) => {
      const account = `rollback-${insertFastPath}`;
      const runId = await newRun(database);
      const good = cdrRows([cdr("ok-1"), cdr("ok-2")]);
      const wrongType: LoadRow = {
        columns: { ...good[0]!.columns, uuid: "bad", duration: "sixty" },
        extra: null,
      };
      const attempt = loadSlice(
        database.warehouse,
        input(cdrsStream, account, runId, AUG1, [...good, wrongType], {
          rejects: [{ raw: { uuid: "r" }, issues: [] }],
          insertFastPath,
        }),
      );
      await expect(attempt).rejects.toBeInstanceOf(SliceError);
      await expect(attempt).rejects.toThrow(
        new RegExp(
          `loading 2026-08-01\\.\\.2026-08-02 of stream cdrs for account ${account} failed: .*integer`,
        ),
      );

      // Past the COPY: the CHECK on direction fails in the merge, after staging succeeded.
      const wrongDirection: LoadRow = {
        columns: { ...good[0]!.columns, uuid: "bad", direction: "sideways" },
        extra: null,
      };
      await expect(
        loadSlice(database.warehouse, input(cdrsStream, account, runId, AUG1, [...good, wrongDirection])),
      ).rejects.toThrow(/direction/);

      expect(await count(database, `platform.cdrs WHERE _account = '${account}'`)).toBe(0);
      expect(await count(database, `etl.rejects WHERE account = '${account}'`)).toBe(0);
      expect(await count(database, `etl.run_slices WHERE account = '${account}'`)).toBe(0);
      expect(await completedWindows(database.warehouse.db, account, "cdrs")).toEqual(new Set());

      // The pool is still healthy and the same slice loads once the data is right.
      const ok = await loadSlice(
        database.warehouse,
        input(cdrsStream, account, runId, AUG1, good, { insertFastPath }),
      );
      expect(ok).toMatchObject({ inserted: 2 });
      expect(await completedWindows(database.warehouse.db, account, "cdrs")).toEqual(new Set(["2026-08-01"]));
    },
  );

  it("marks replayed rejects in the same transaction and leaves window completion alone", async ({
    database,
  }) => {
    const account = "replay";
    const runId = await newRun(database);
    const bad = cdr("late", { answered_by: "robot" });
    await loadSlice(
      database.warehouse,
      input(cdrsStream, account, runId, AUG1, [], {
        rejects: [{ raw: bad, issues: [] }],
        completeWindow: false,
      }),
    );
    const [pending] = await pendingRejects(database.warehouse.db, { stream: "cdrs", account });
    const replayRun = await newRun(database);
    const fixed = cdrRows([{ ...bad, answered_by: "machine" }]);
    const result = await loadSlice(
      database.warehouse,
      input(cdrsStream, account, replayRun, AUG1, fixed, {
        completeWindow: false,
        replayedRejectIds: [pending!.id],
      }),
    );
    expect(result).toMatchObject({ inserted: 1, rejected: 0 });
    expect(await pendingRejects(database.warehouse.db, { stream: "cdrs", account })).toEqual([]);
    expect(await completedWindows(database.warehouse.db, account, "cdrs")).toEqual(new Set());
  });
});
