import { sql } from "kysely";
import { markAbandonedRuns } from "../../src/warehouse/coordination/abandoned-runs.js";
import { acquireStreamLocks } from "../../src/warehouse/coordination/stream-locks.js";
import { finishRun, startRun } from "../../src/warehouse/state/run-records.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";

const HOST = "etl-host-1";
const OWN_PID = 4242;
const LIVE_PID = 777;

/** A `running` row as another process left it (not started through this process's startRun). */
async function foreignRun(database: TestDatabase, host: string, pid: number, hoursAgo = 0): Promise<number> {
  const row = await sql<{ id: number }>`
    INSERT INTO etl.runs (command, host, pid, status, started_at)
    VALUES ('backfill', ${host}, ${pid}, 'running', now() - make_interval(hours => ${hoursAgo}))
    RETURNING id`.execute(database.warehouse.db);
  return Number(row.rows[0]!.id);
}

async function statusOf(database: TestDatabase, id: number) {
  return database.warehouse.db
    .selectFrom("etl.runs")
    .select(["status", "exit_code", "started_at", "finished_at"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

describe("abandoned runs", () => {
  it("marks runs whose process is gone, and never a live one", async ({ database }) => {
    const db = database.warehouse.db;
    const deadHere = await foreignRun(database, HOST, 999_001);
    await sql`
      INSERT INTO etl.run_slices (run_id, account, stream, slice, status, started_at, finished_at)
      VALUES (${deadHere}, 'a', 'cdrs', '2026-08-01..2026-08-02', 'succeeded',
              now() - interval '5 minutes', now() - interval '4 minutes')`.execute(db);
    const aliveHere = await foreignRun(database, HOST, LIVE_PID);
    // Streams each run planned (`running`) and one the dead run had already ended.
    await sql`
      INSERT INTO etl.run_streams (run_id, account, stream, status)
      VALUES (${deadHere}, 'a', 'cdrs', 'running'), (${deadHere}, 'a', 'messages', 'running'),
             (${deadHere}, 'a', 'invoices', 'failed'), (${aliveHere}, 'a', 'cdrs', 'running')`.execute(db);
    const reusedOwnPid = await foreignRun(database, HOST, OWN_PID);
    const ownRun = await startRun(db, { command: "run", arguments: {}, host: HOST, pid: OWN_PID });
    const elsewhereRecent = await foreignRun(database, "etl-host-2", 12, 1);
    const elsewhereStale = await foreignRun(database, "etl-host-2", 13, 30);
    // Old, on another host, dead pid here: but its lock session is open, so it is alive.
    const staleWithLocks = await foreignRun(database, "etl-host-2", 14, 30);
    const deadPidWithLocks = await foreignRun(database, HOST, 999_002);
    const finished = await foreignRun(database, HOST, 999_003);
    await finishRun(db, finished, { status: "succeeded", exitCode: 0 });
    const locksA = await acquireStreamLocks(database.warehouse, [{ account: "a", stream: "cdrs" }], {
      timeoutMs: 0,
      runId: staleWithLocks,
    });
    const locksB = await acquireStreamLocks(database.warehouse, [{ account: "b", stream: "cdrs" }], {
      timeoutMs: 0,
      runId: deadPidWithLocks,
    });
    try {
      const marked = await markAbandonedRuns(db, {
        host: HOST,
        pid: OWN_PID,
        isAlive: (pid) => pid === LIVE_PID,
      });
      expect(marked.map((r) => [r.id, r.reason])).toEqual([
        [deadHere, `process 999001 on host ${HOST} is gone`],
        [reusedOwnPid, `pid ${OWN_PID} on host ${HOST} is now another process`],
        [elsewhereStale, "started more than 6 h ago and holds no lock session"],
      ]);
      for (const id of [aliveHere, ownRun, elsewhereRecent, staleWithLocks, deadPidWithLocks]) {
        expect((await statusOf(database, id)).status, `run ${id}`).toBe("running");
      }
      expect((await statusOf(database, finished)).status).toBe("succeeded");
      // The dead run's streams still `running` are abandoned with it; the live run's are left alone.
      const streams = await db
        .selectFrom("etl.run_streams")
        .select(["run_id", "stream", "status"])
        .orderBy("run_id")
        .orderBy("stream")
        .execute();
      expect(streams.map((r) => [Number(r.run_id), r.stream, r.status])).toEqual([
        [deadHere, "cdrs", "abandoned"],
        [deadHere, "invoices", "failed"],
        [deadHere, "messages", "abandoned"],
        [aliveHere, "cdrs", "running"],
      ]);
      // Its end is its last sign of life: the end of its last slice (else its start); no exit code.
      const dead = await statusOf(database, deadHere);
      const lastSlice = await db
        .selectFrom("etl.run_slices")
        .select("finished_at")
        .where("run_id", "=", deadHere)
        .executeTakeFirstOrThrow();
      expect(dead).toMatchObject({
        status: "abandoned",
        exit_code: null,
        finished_at: lastSlice.finished_at,
      });
      expect((await statusOf(database, elsewhereStale)).finished_at).toEqual(
        (await statusOf(database, elsewhereStale)).started_at,
      );
    } finally {
      await locksA.release();
      await locksB.release();
    }
    // Once its lock session is gone, a dead pid on this host is abandoned too; twice changes nothing.
    const again = await markAbandonedRuns(db, {
      host: HOST,
      pid: OWN_PID,
      isAlive: (pid) => pid === LIVE_PID,
    });
    expect(again.map((r) => r.id)).toEqual([staleWithLocks, deadPidWithLocks]);
    expect(await markAbandonedRuns(db, { host: HOST, pid: OWN_PID, isAlive: () => false })).toEqual([
      expect.objectContaining({ id: aliveHere }),
    ]);
    expect((await statusOf(database, ownRun)).status).toBe("running");
  });
});
