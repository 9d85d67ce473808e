import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LockHeldError } from "../../src/errors.js";
import { connectWarehouse, type Warehouse } from "../../src/warehouse/connect-warehouse.js";
import { acquireStreamLocks, findHolder, streamLockKey } from "../../src/warehouse/stream-locks.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";

let database: TestDatabase;
// A second pool plays the second process: its own connections, like another `run`.
let other: Warehouse;
beforeAll(async () => {
  database = await createTestDatabase();
  other = await connectWarehouse(database.url);
});
afterAll(async () => {
  await other?.close();
  await database?.drop();
});

describe("acquireStreamLocks", () => {
  it("refuses a second holder of the same (account, stream), naming the holder, until released", async () => {
    const held = await acquireStreamLocks(
      database.warehouse,
      [
        { account: "acme", stream: "cdrs" },
        { account: "acme", stream: "invoices" },
      ],
      { timeoutMs: 0, runId: 41 },
    );
    const attempt = acquireStreamLocks(other, [{ account: "acme", stream: "invoices" }], {
      timeoutMs: 0,
      runId: 42,
    });
    await expect(attempt).rejects.toBeInstanceOf(LockHeldError);
    await expect(attempt).rejects.toThrow(
      `stream invoices of account acme is already running (pid ${process.pid} on host ${hostname()}, run 41); wait for it or use --lock-timeout`,
    );
    // Other accounts and streams are free.
    const disjoint = await acquireStreamLocks(
      other,
      [
        { account: "acme", stream: "short_link_metrics" },
        { account: "globex", stream: "cdrs" },
      ],
      { timeoutMs: 0, runId: 42 },
    );
    await disjoint.release();
    await held.release();
    await held.release();
    const after = await acquireStreamLocks(other, [{ account: "acme", stream: "invoices" }], {
      timeoutMs: 0,
      runId: 43,
    });
    await after.release();
  });

  it("looks for the holder in this warehouse only, not among holders of the same key in other databases", async () => {
    const elsewhere = await createTestDatabase();
    try {
      const key = { account: "acme", stream: "sms" };
      const foreign = await acquireStreamLocks(elsewhere.warehouse, [key], { timeoutMs: 0, runId: 777 });
      const client = await database.warehouse.pool.connect();
      try {
        expect(await findHolder(client, streamLockKey(key))).toBeNull();
        const local = await acquireStreamLocks(other, [key], { timeoutMs: 0, runId: 51 });
        expect(await findHolder(client, streamLockKey(key))).toMatchObject({ run: "51" });
        await local.release();
      } finally {
        client.release();
      }
      await foreign.release();
    } finally {
      await elsewhere.drop();
    }
  });

  it("survives the server dropping its lock connection, and release() still returns", async () => {
    const key = { account: "acme", stream: "calls-lost" };
    const held = await acquireStreamLocks(database.warehouse, [key], { timeoutMs: 0, runId: 61 });
    const killed = await database.warehouse.pool.query(
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name LIKE 'telecom-etl run 61 %'",
    );
    expect(killed.rows).toEqual([{ ok: true }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await held.release();
    const again = await acquireStreamLocks(other, [key], { timeoutMs: 0, runId: 62 });
    await again.release();
  });

  it("keeps no lock while it waits, and gets them all once the holder lets go within the timeout", async () => {
    const first = await acquireStreamLocks(database.warehouse, [{ account: "acme", stream: "cdrs" }], {
      timeoutMs: 0,
      runId: 1,
    });
    let clock = 0;
    let waits = 0;
    const second = await acquireStreamLocks(
      other,
      [
        { account: "acme", stream: "invoices" },
        { account: "acme", stream: "cdrs" },
      ],
      {
        timeoutMs: 10_000,
        runId: 2,
        now: () => clock,
        sleep: async (ms) => {
          waits += 1;
          clock += ms;
          // While the second run waits, it must not sit on acme/invoices.
          const probe = await acquireStreamLocks(
            database.warehouse,
            [{ account: "acme", stream: "invoices" }],
            {
              timeoutMs: 0,
              runId: 3,
            },
          );
          await probe.release();
          if (waits === 2) await first.release();
        },
      },
    );
    expect(waits).toBe(2);
    await expect(
      acquireStreamLocks(database.warehouse, [{ account: "acme", stream: "cdrs" }], {
        timeoutMs: 0,
        runId: 4,
      }),
    ).rejects.toThrow(/run 2\)/);
    await second.release();
  });

  it("gives up after the timeout", async () => {
    const first = await acquireStreamLocks(database.warehouse, [{ account: "x", stream: "cdrs" }], {
      timeoutMs: 0,
      runId: 7,
    });
    let clock = 0;
    const attempt = acquireStreamLocks(other, [{ account: "x", stream: "cdrs" }], {
      timeoutMs: 2_000,
      runId: 8,
      pollMs: 500,
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    await expect(attempt).rejects.toThrow(/already running \(pid \d+ on host .+, run 7\)/);
    expect(clock).toBe(2_000);
    await first.release();
  });
});
