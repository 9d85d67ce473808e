/**
 * Loads wait for a load slot of their pool (its connections but two), not in the pool's queue,
 * where a wait longer than the connection timeout fails the window: many accounts finishing
 * windows at once on one small pool must all load.
 */
import type pg from "pg";
import { cdrsStream } from "../../src/streams/cdrs.js";
import { connectWarehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { loadSlice } from "../../src/warehouse/load/load-slice.js";
import { loadSlotsOf } from "../../src/warehouse/load/load-slots.js";
import { startRun } from "../../src/warehouse/state/run-records.js";
import { cdr, cdrRows } from "../helpers/cdr-rows.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/** A day's window of `rows` placed CDRs of `account`. */
function windowOf(account: string, runId: number, day: number, rows: number) {
  const date = `2026-08-${String(day).padStart(2, "0")}`;
  const next = `2026-08-${String(day + 1).padStart(2, "0")}`;
  const raws = Array.from({ length: rows }, (_, i) =>
    cdr(`${account}-${day}-${i}`, { date: `${date}T10:00:00Z` }),
  );
  return {
    stream: cdrsStream,
    account,
    runId,
    extractedAt: new Date(`${next}T01:00:00Z`),
    slice: { kind: "window" as const, window: { start: date, end: next } },
    rows: cdrRows(raws),
    rejects: [],
    stats: { requests: 1, retries: 0, rowsFetched: rows, startedAt: new Date(`${next}T01:00:00Z`) },
    completeWindow: true,
  };
}

/** A new connection of `pool`, tried again while opening it outlasts the pool's short timeout. */
async function openConnection(pool: pg.Pool): Promise<pg.PoolClient> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pool.connect();
    } catch (error) {
      if (attempt >= 50) throw error;
    }
  }
}

describe("load slots", () => {
  it("24 windows loaded at once on a pool of 4 (2 held elsewhere) all load, though its queue times out after 50 ms", async ({
    database,
  }) => {
    // A 50 ms connection timeout: any load left waiting in the pool's own queue that long fails.
    const warehouse = await connectWarehouse(database.url, { max: 4, connectionTimeoutMs: 50 });
    // All four connections opened first (a new one may take longer than 50 ms on a busy machine:
    // that is not what this tests), two of them then held elsewhere.
    const opened = [];
    for (let i = 0; i < 4; i++) opened.push(await openConnection(warehouse.pool));
    const held = opened.slice(0, 2);
    for (const client of opened.slice(2)) client.release();
    try {
      const runId = await startRun(warehouse.db, {
        command: "test",
        arguments: {},
        host: "test-host",
        pid: 1,
      });
      expect(loadSlotsOf(warehouse.pool).concurrency).toBe(2);
      const results = await Promise.allSettled(
        Array.from({ length: 24 }, (_, i) =>
          loadSlice(warehouse, windowOf(`slots-${i % 6}`, runId, 1 + Math.floor(i / 6), 400)),
        ),
      );
      const failed = results.filter((r) => r.status === "rejected");
      expect(failed.map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      const loaded = await warehouse.pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM platform.cdrs WHERE _account LIKE 'slots-%'",
      );
      expect(Number(loaded.rows[0]!.n)).toBe(24 * 400);
    } finally {
      for (const client of held) client.release();
      await warehouse.close();
    }
  });
});
