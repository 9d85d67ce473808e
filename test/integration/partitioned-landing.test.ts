import { sql } from "kysely";
import pino from "pino";
import { cdrsStream } from "../../src/streams/cdrs.js";
import type { LoadRow } from "../../src/streams/load-row.js";
import type { Slice } from "../../src/streams/stream-definition.js";
import { retentionCutoff, retireMonthPartitions } from "../../src/warehouse/admin/partition-retention.js";
import { migrateToLatest } from "../../src/warehouse/connection/migrate.js";
import { loadSlice, type SliceLoadResult } from "../../src/warehouse/load/load-slice.js";
import { forgetKnownPartitions } from "../../src/warehouse/load/month-partitions.js";
import { RunWrittenKeys } from "../../src/warehouse/load/run-written-keys.js";
import { startRun } from "../../src/warehouse/state/run-records.js";
import { cdr, cdrRows } from "../helpers/cdr-rows.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { migrateBefore } from "../helpers/migrate-before.js";
import type { TestDatabase } from "../helpers/test-database.js";

/**
 * The large landing tables are partitioned by month of their window column (migration 0023):
 * rows land in their month's partition (created on first use), a window's reads touch only its
 * partition, a key stays unique across months (a row whose date moved is not duplicated), and
 * retention retires old months with their window states.
 */
const day = (start: string, end: string): Slice => ({ kind: "window", window: { start, end } });

async function load(
  database: TestDatabase,
  account: string,
  slice: Slice,
  rows: readonly LoadRow[],
  insertFastPath = true,
  writtenKeys?: RunWrittenKeys,
  fence?: () => Promise<void>,
): Promise<SliceLoadResult> {
  const runId = await startRun(database.warehouse.db, {
    command: "test",
    arguments: {},
    host: "test",
    pid: 1,
  });
  return loadSlice(database.warehouse, {
    stream: cdrsStream,
    account,
    runId,
    extractedAt: new Date("2026-09-02T01:00:00Z"),
    slice,
    rows,
    rejects: [],
    stats: { requests: 1, retries: 0, rowsFetched: rows.length, startedAt: new Date("2026-09-02T01:00:00Z") },
    completeWindow: true,
    insertFastPath,
    ...(writtenKeys === undefined ? {} : { writtenKeys }),
    ...(fence === undefined ? {} : { fence }),
  });
}

/** CDR rows of one call `id` dated `date`. */
const callOn = (id: string, date: string) => cdrRows([cdr(id, { date })]);

/**
 * A run's written keys for `account`, its lock sessions counted in `locks.sessions` (set it to
 * say the locks were taken again), after the run's first load: call `id` in 2026-10-03's window.
 */
async function runAfterFirstLoad(database: TestDatabase, account: string, id: string) {
  const locks = { sessions: 1 };
  const run = new RunWrittenKeys(account, () => locks.sessions);
  await load(
    database,
    account,
    day("2026-10-03", "2026-10-04"),
    callOn(id, "2026-10-03T05:00:00Z"),
    true,
    run,
  );
  return { run, locks };
}

async function rowsByPartition(database: TestDatabase, account: string) {
  const result = await sql<{ partition: string; uuid: string; date: Date }>`
    SELECT tableoid::regclass::text AS partition, uuid, date FROM platform.cdrs
    WHERE _account = ${account} ORDER BY uuid`.execute(database.warehouse.db);
  return result.rows.map((r) => ({ partition: r.partition, uuid: r.uuid, date: r.date.toISOString() }));
}

describe("landing tables partitioned by month", () => {
  it("puts each row in its month's partition, creating a month on first use, and reads a window from one partition", async ({
    database,
  }) => {
    const account = "months";
    await load(
      database,
      account,
      day("2019-03-31", "2019-04-01"),
      cdrRows([cdr("old", { date: "2019-03-31T23:30:00Z" })]),
    );
    await load(
      database,
      account,
      day("2026-08-31", "2026-09-01"),
      cdrRows([cdr("aug", { date: "2026-08-31T23:59:59Z" })]),
    );
    await load(
      database,
      account,
      day("2026-09-01", "2026-09-02"),
      cdrRows([cdr("sep", { date: "2026-09-01T00:00:00Z" })]),
    );
    expect(await rowsByPartition(database, account)).toEqual([
      { partition: "platform.cdrs_p2026_08", uuid: "aug", date: "2026-08-31T23:59:59.000Z" },
      { partition: "platform.cdrs_p2019_03", uuid: "old", date: "2019-03-31T23:30:00.000Z" },
      { partition: "platform.cdrs_p2026_09", uuid: "sep", date: "2026-09-01T00:00:00.000Z" },
    ]);
    const plan = await sql<{ "QUERY PLAN": unknown }>`
      EXPLAIN (FORMAT JSON) SELECT count(*) FROM platform.cdrs
      WHERE _account = ${account} AND date >= '2026-08-31'::date AND date < '2026-09-01'::date`.execute(
      database.warehouse.db,
    );
    const scanned = [
      ...JSON.stringify(plan.rows[0]!["QUERY PLAN"]).matchAll(/"Relation Name":"([^"]+)"/g),
    ].map((m) => m[1]);
    expect(scanned).toEqual(["cdrs_p2026_08"]);
  });

  it("keeps a key once when its date moves to another month, through the new-window COPY and through the stage merge", async ({
    database,
  }) => {
    const account = "moves";
    const first = await load(
      database,
      account,
      day("2026-08-31", "2026-09-01"),
      cdrRows([cdr("a", { date: "2026-08-31T22:00:00Z" }), cdr("b", { date: "2026-08-31T23:00:00Z" })]),
    );
    expect(first).toMatchObject({ inserted: 2, updated: 0 });
    // A new window (COPY fast path): "a" now says September 1st.
    const moved = await load(
      database,
      account,
      day("2026-09-01", "2026-09-02"),
      cdrRows([cdr("a", { date: "2026-09-01T01:00:00Z" }), cdr("c", { date: "2026-09-01T02:00:00Z" })]),
    );
    expect(moved).toMatchObject({ inserted: 1, updated: 1 });
    // A window with rows (stage merge): "b" moves too, "c" is unchanged, "d" is new.
    const merged = await load(
      database,
      account,
      day("2026-09-01", "2026-09-02"),
      cdrRows([
        cdr("a", { date: "2026-09-01T01:00:00Z" }),
        cdr("b", { date: "2026-09-01T03:00:00Z" }),
        cdr("c", { date: "2026-09-01T02:00:00Z" }),
        cdr("d", { date: "2026-09-01T04:00:00Z", duration: 5 }),
      ]),
    );
    expect(merged).toMatchObject({ inserted: 1, updated: 1, unchanged: 2 });
    expect(await rowsByPartition(database, account)).toEqual([
      { partition: "platform.cdrs_p2026_09", uuid: "a", date: "2026-09-01T01:00:00.000Z" },
      { partition: "platform.cdrs_p2026_09", uuid: "b", date: "2026-09-01T03:00:00.000Z" },
      { partition: "platform.cdrs_p2026_09", uuid: "c", date: "2026-09-01T02:00:00.000Z" },
      { partition: "platform.cdrs_p2026_09", uuid: "d", date: "2026-09-01T04:00:00.000Z" },
    ]);
    // Each move is logged (key, old date, new UTC day) for the facts partitioned by month.
    const moves = await sql<{ table: string; key: string[]; from: Date; to: string; run: boolean }>`
      SELECT landing_table AS table, row_key AS key, moved_from::timestamptz AS from,
             moved_to_day::text AS to, run_id IS NOT NULL AS run
      FROM etl.landing_moves WHERE account = ${account} ORDER BY id`.execute(database.warehouse.db);
    expect(moves.rows.map((m) => ({ ...m, from: m.from.toISOString() }))).toEqual([
      {
        table: "platform.cdrs",
        key: ["placed", "a"],
        from: "2026-08-31T22:00:00.000Z",
        to: "2026-09-01",
        run: true,
      },
      {
        table: "platform.cdrs",
        key: ["placed", "b"],
        from: "2026-08-31T23:00:00.000Z",
        to: "2026-09-01",
        run: true,
      },
    ]);
    // The same key in the other direction is another row; a changed value is an update in place.
    const again = await load(
      database,
      account,
      day("2026-09-01", "2026-09-02"),
      cdrRows([cdr("d", { date: "2026-09-01T04:00:00Z", duration: 6 })]),
      false,
    );
    expect(again).toMatchObject({ inserted: 0, updated: 1, unchanged: 0 });
  });

  it("keeps a key once when a new window's read serves it dated outside that window (a shifted day)", async ({
    database,
  }) => {
    const account = "moves-outside";
    await load(
      database,
      account,
      day("2026-08-10", "2026-08-11"),
      cdrRows([cdr("k", { date: "2026-08-10T09:00:00Z" })]),
    );
    // The read of September 1st (no rows yet) serves "k" re-dated to August 31st, outside the
    // window: a merge stream loads it under its own day (max_outside_window_share above 0), and
    // its copy of August 10th must go, as a merge through the stage does.
    const moved = await load(
      database,
      account,
      day("2026-09-01", "2026-09-02"),
      cdrRows([cdr("k", { date: "2026-08-31T23:30:00Z" }), cdr("n", { date: "2026-09-01T02:00:00Z" })]),
    );
    expect(moved).toMatchObject({ inserted: 1, updated: 1 });
    expect(await rowsByPartition(database, account)).toEqual([
      { partition: "platform.cdrs_p2026_08", uuid: "k", date: "2026-08-31T23:30:00.000Z" },
      { partition: "platform.cdrs_p2026_09", uuid: "n", date: "2026-09-01T02:00:00.000Z" },
    ]);
  });

  it("finds a key filed under a later month, past an empty month, when a new window's COPY holds it", async ({
    database,
  }) => {
    const account = "moves-back";
    await load(
      database,
      account,
      day("2026-11-05", "2026-11-06"),
      cdrRows([cdr("z", { date: "2026-11-05T09:00:00Z" })]),
    );
    // October lies between: a partition without this account's rows (another account's row made it).
    await load(
      database,
      "other",
      day("2026-10-10", "2026-10-11"),
      cdrRows([cdr("o", { date: "2026-10-10T09:00:00Z" })]),
    );
    const moved = await load(
      database,
      account,
      day("2026-09-20", "2026-09-21"),
      cdrRows([cdr("z", { date: "2026-09-20T09:00:00Z" }), cdr("y", { date: "2026-09-20T10:00:00Z" })]),
    );
    expect(moved).toMatchObject({ inserted: 1, updated: 1 });
    expect(await rowsByPartition(database, account)).toEqual([
      { partition: "platform.cdrs_p2026_09", uuid: "y", date: "2026-09-20T10:00:00.000Z" },
      { partition: "platform.cdrs_p2026_09", uuid: "z", date: "2026-09-20T09:00:00.000Z" },
    ]);
  });

  it("a run's first load of an account probes only the keys it wrote before, and finds a row it moved across months", async ({
    database,
  }) => {
    const account = "first-load";
    const run = new RunWrittenKeys(account, () => 1);
    const august = cdrRows([
      cdr("a", { date: "2026-08-31T22:00:00Z" }),
      cdr("b", { date: "2026-08-31T23:00:00Z" }),
    ]);
    expect(await load(database, account, day("2026-08-31", "2026-09-01"), august, true, run)).toMatchObject({
      inserted: 2,
      updated: 0,
    });
    // The same run reads September 1st: "a" moved there, "c" is new; only "a" is a row it wrote before.
    const september = cdrRows([
      cdr("a", { date: "2026-09-01T01:00:00Z" }),
      cdr("c", { date: "2026-09-01T02:00:00Z" }),
    ]);
    const client = await database.warehouse.pool.connect();
    try {
      const before = await run.rowsWrittenBefore(client, cdrsStream.table, september);
      expect(before?.map((row) => row.columns.uuid)).toEqual(["a"]);
    } finally {
      client.release();
    }
    const fresh = new RunWrittenKeys(account, () => 1);
    expect(
      await load(database, account, day("2026-09-01", "2026-09-02"), september, true, fresh),
    ).toMatchObject({
      inserted: 1,
      updated: 1,
    });
    expect(await rowsByPartition(database, account)).toEqual([
      { partition: "platform.cdrs_p2026_09", uuid: "a", date: "2026-09-01T01:00:00.000Z" },
      { partition: "platform.cdrs_p2026_08", uuid: "b", date: "2026-08-31T23:00:00.000Z" },
      { partition: "platform.cdrs_p2026_09", uuid: "c", date: "2026-09-01T02:00:00.000Z" },
    ]);
  });

  it("a run that wrote an account's table first finds a row it moved through the listed keys; rows from before, or a lost lock, mean every row is probed", async ({
    database,
  }) => {
    const account = "listed";
    const { run, locks } = await runAfterFirstLoad(database, account, "m");
    // Another window of the same run: "m" moved a month back. Only the listed key is probed.
    const moved = await load(
      database,
      account,
      day("2026-09-03", "2026-09-04"),
      callOn("m", "2026-09-03T05:00:00Z"),
      true,
      run,
    );
    expect(moved).toMatchObject({ inserted: 0, updated: 1 });
    expect(await rowsByPartition(database, account)).toEqual([
      { partition: "platform.cdrs_p2026_09", uuid: "m", date: "2026-09-03T05:00:00.000Z" },
    ]);
    // The table now holds the account's rows from before: a new run knows nothing of their keys.
    const client = await database.warehouse.pool.connect();
    try {
      const next = new RunWrittenKeys(account, () => 1);
      expect(
        await next.rowsWrittenBefore(client, cdrsStream.table, callOn("n", "2026-09-05T05:00:00Z")),
      ).toBeUndefined();
      // Once the first run's locks were taken again, another run may have written: nothing is known.
      locks.sessions = 2;
      expect(
        await run.rowsWrittenBefore(client, cdrsStream.table, callOn("p", "2026-09-06T05:00:00Z")),
      ).toBeUndefined();
    } finally {
      client.release();
    }
  });

  it("a load that narrowed its probe by the run's keys is loaded again, probing every row, when the run's locks were taken again before its commit", async ({
    database,
  }) => {
    const account = "retaken";
    const { run, locks } = await runAfterFirstLoad(database, account, "a");
    // While the run reads September (its probe narrowed to the keys it wrote, "x" not among them),
    // its locks are lost: another run stores "x" under October, then the locks are taken again.
    let fenced = 0;
    const retaken = async () => {
      fenced += 1;
      if (fenced > 1) return;
      await load(database, account, day("2026-10-05", "2026-10-06"), callOn("x", "2026-10-05T05:00:00Z"));
      locks.sessions = 2;
    };
    const moved = await load(
      database,
      account,
      day("2026-09-05", "2026-09-06"),
      callOn("x", "2026-09-05T05:00:00Z"),
      true,
      run,
      retaken,
    );
    expect(await rowsByPartition(database, account)).toEqual([
      { partition: "platform.cdrs_p2026_10", uuid: "a", date: "2026-10-03T05:00:00.000Z" },
      { partition: "platform.cdrs_p2026_09", uuid: "x", date: "2026-09-05T05:00:00.000Z" },
    ]);
    expect(moved).toMatchObject({ inserted: 0, updated: 1 });
    expect(fenced).toBe(2);
  });

  it("retires months before the cutoff: rows counted, partition dropped or detached, the month's window states forgotten", async ({
    createDatabase,
  }) => {
    const database = await createDatabase();
    const db = database.warehouse.db;
    for (const [account, date] of [
      ["r1", "2025-01-15T10:00:00Z"],
      ["r2", "2025-01-20T10:00:00Z"],
      ["r1", "2025-02-03T10:00:00Z"],
      ["r1", "2025-03-01T00:00:00Z"],
    ] as const) {
      const start = date.slice(0, 10);
      const end = new Date(Date.parse(`${start}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      await load(database, account, day(start, end), cdrRows([cdr(`${account}-${start}`, { date })]));
    }
    expect(retentionCutoff(new Date("2025-05-10T12:00:00Z"), 2)).toBe("2025-03-01");
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const targets = [{ stream: "cdrs", table: cdrsStream.table }];
    const dropped = await retireMonthPartitions(database.warehouse.pool, targets, "2025-02-01", "drop", log);
    expect(dropped).toEqual([
      {
        table: "platform.cdrs",
        partition: "platform.cdrs_p2025_01",
        month: "2025-01-01",
        rows: 2,
        action: "drop",
      },
    ]);
    const detached = await retireMonthPartitions(
      database.warehouse.pool,
      targets,
      "2025-03-01",
      "detach",
      log,
    );
    expect(detached).toEqual([
      {
        table: "platform.cdrs",
        partition: "platform.cdrs_p2025_02",
        month: "2025-02-01",
        rows: 1,
        action: "detach",
        detachedAs: "platform.cdrs_p2025_02_detached",
      },
    ]);
    expect(lines.map((l) => l.msg)).toEqual([
      "retention: dropped platform.cdrs_p2025_01 (2 rows)",
      "retention: detached platform.cdrs_p2025_02 as platform.cdrs_p2025_02_detached (1 rows)",
    ]);
    const left = await sql<{
      uuid: string;
    }>`SELECT uuid FROM platform.cdrs WHERE _account IN ('r1', 'r2') ORDER BY 1`.execute(db);
    expect(left.rows.map((r) => r.uuid)).toEqual(["r1-2025-03-01"]);
    const kept = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM platform.cdrs_p2025_02_detached`.execute(db);
    expect(kept.rows[0]!.n).toBe(1);
    const states = await sql<{ window_start: string }>`
      SELECT window_start::text FROM etl.stream_state WHERE stream = 'cdrs' AND account IN ('r1', 'r2') ORDER BY 1`.execute(
      db,
    );
    expect(states.rows.map((r) => r.window_start)).toEqual(["2025-03-01"]);
    // A later load of a retired month creates its partition again.
    await load(
      database,
      "r1",
      day("2025-01-15", "2025-01-16"),
      cdrRows([cdr("back", { date: "2025-01-15T11:00:00Z" })]),
    );
    expect((await rowsByPartition(database, "r1")).map((r) => r.partition)).toContain(
      "platform.cdrs_p2025_01",
    );
    // So does a load of a detached month (issue 32: the detached table kept the partition's name,
    // and the load failed with "no partition of relation cdrs"); the archived table is left alone,
    // and the month retired again is detached under a name of its own.
    const intoDetached = await load(
      database,
      "r1",
      day("2025-02-04", "2025-02-05"),
      cdrRows([cdr("feb-again", { date: "2025-02-04T11:00:00Z" })]),
    );
    expect(intoDetached).toMatchObject({ inserted: 1 });
    expect((await rowsByPartition(database, "r1")).map((r) => r.partition)).toContain(
      "platform.cdrs_p2025_02",
    );
    const again = await retireMonthPartitions(database.warehouse.pool, targets, "2025-03-01", "detach", log);
    expect(again.map((r) => r.detachedAs)).toEqual([
      "platform.cdrs_p2025_01_detached",
      "platform.cdrs_p2025_02_detached_2",
    ]);
    const archived = await sql<{ uuid: string }>`
      SELECT uuid FROM platform.cdrs_p2025_02_detached ORDER BY 1`.execute(db);
    expect(archived.rows.map((r) => r.uuid)).toEqual(["r1-2025-02-03"]);
  });

  it("migration 0027 renames a month an earlier release detached under its partition's name; a month detached by hand is refused with a line", async ({
    createDatabase,
  }) => {
    const database = await createDatabase({ migrate: false });
    const db = database.warehouse.db;
    await migrateBefore(db, "0027");
    await load(
      database,
      "old",
      day("2025-06-10", "2025-06-11"),
      cdrRows([cdr("june", { date: "2025-06-10T10:00:00Z" })]),
    );
    // What retention's detach left before: the month under its partition's name.
    await sql`ALTER TABLE platform.cdrs DETACH PARTITION platform.cdrs_p2025_06`.execute(db);
    await migrateToLatest(db);
    const names = await sql<{ name: string; partition: boolean }>`
      SELECT c.relname AS name, c.relispartition AS partition FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'platform' AND c.relkind = 'r' AND c.relname LIKE 'cdrs_p2025_06%' ORDER BY 1`.execute(
      db,
    );
    expect(names.rows).toEqual([{ name: "cdrs_p2025_06_detached", partition: false }]);
    forgetKnownPartitions(database.warehouse.pool);
    const back = await load(
      database,
      "old",
      day("2025-06-11", "2025-06-12"),
      cdrRows([cdr("june-2", { date: "2025-06-11T10:00:00Z" })]),
    );
    expect(back).toMatchObject({ inserted: 1 });
    // A month detached by hand under its name: the load fails saying what to do, not "no partition".
    await sql`ALTER TABLE platform.cdrs DETACH PARTITION platform.cdrs_p2025_06`.execute(db);
    forgetKnownPartitions(database.warehouse.pool);
    await expect(
      load(
        database,
        "old",
        day("2025-06-12", "2025-06-13"),
        cdrRows([cdr("june-3", { date: "2025-06-12T10:00:00Z" })]),
      ),
    ).rejects.toThrow(
      /platform\.cdrs_p2025_06 is not a partition of platform\.cdrs .*RENAME TO cdrs_p2025_06_detached/,
    );
  });

  it("loads into a month another process retired after this one saw it: the month is created again", async ({
    createDatabase,
  }) => {
    const database = await createDatabase();
    await load(
      database,
      "gone",
      day("2025-04-10", "2025-04-11"),
      cdrRows([cdr("first", { date: "2025-04-10T10:00:00Z" })]),
    );
    // Another process's retention drops the month; this process still remembers it as existing.
    await sql`DROP TABLE platform.cdrs_p2025_04`.execute(database.warehouse.db);
    const again = await load(
      database,
      "gone",
      day("2025-04-11", "2025-04-12"),
      cdrRows([cdr("second", { date: "2025-04-11T10:00:00Z" })]),
    );
    expect(again).toMatchObject({ inserted: 1 });
    expect(await rowsByPartition(database, "gone")).toEqual([
      { partition: "platform.cdrs_p2025_04", uuid: "second", date: "2025-04-11T10:00:00.000Z" },
    ]);
  });
});
