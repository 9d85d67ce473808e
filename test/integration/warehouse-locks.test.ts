import net from "node:net";
import { hostname } from "node:os";
import type { PoolClient } from "pg";
import { vi } from "vitest";
import { LockHeldError } from "../../src/core/errors.js";
import { connectWarehouse, type Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import {
  acquireStreamLocks,
  findHolder,
  streamLockKey,
} from "../../src/warehouse/coordination/stream-locks.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/** A second pool on the file's database plays the second process: its own connections, like another `run`. */
const it = fixtureTest.extend("other", { scope: "file" }, async ({ database }, { onCleanup }) => {
  const other = await connectWarehouse(database.url);
  onCleanup(() => other.close());
  return other;
});

/**
 * A TCP relay to the test's Postgres whose `cutClients` ends every connection on the client's side
 * only: the server's sessions stay open (and keep their locks), as when the network between a run
 * and its warehouse fails and the server has not noticed yet.
 */
async function startCuttableRelay(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const accepted = new Set<net.Socket>();
  const upstreams = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    accepted.add(socket);
    upstreams.add(upstream);
    socket.on("error", () => {});
    upstream.on("error", () => {});
    socket.pipe(upstream, { end: false });
    upstream.pipe(socket);
    socket.on("close", () => accepted.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    cutClients() {
      for (const socket of accepted) {
        socket.unpipe();
        socket.destroy();
      }
    },
    async close() {
      for (const socket of [...accepted, ...upstreams]) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The 'error' and 'end' listeners of the connection the pool hands out next (the one released last). */
async function pooledListeners(warehouse: Warehouse): Promise<{ error: number; end: number }> {
  const client = await warehouse.pool.connect();
  const count = { error: client.listenerCount("error"), end: client.listenerCount("end") };
  client.release();
  return count;
}

describe("acquireStreamLocks", () => {
  it("refuses a second holder of the same (account, stream), naming the holder, until released", async ({
    database,
    other,
  }) => {
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

  it("looks for the holder in this warehouse only, not among holders of the same key in other databases", async ({
    database,
    other,
    createDatabase,
  }) => {
    const elsewhere = await createDatabase();
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
  });

  it("hands its connection back to the pool with the listeners it had, however many runs use it", async ({
    database,
  }) => {
    // The pool gives back the connection released last: every run below holds the same one.
    const before = await pooledListeners(database.warehouse);
    for (let run = 0; run < 12; run++) {
      const held = await acquireStreamLocks(database.warehouse, [{ account: "acme", stream: "reuse" }], {
        timeoutMs: 0,
        runId: 70 + run,
      });
      await held.release();
    }
    expect(await pooledListeners(database.warehouse)).toEqual(before);
  });

  it("guards the session it takes its locks again on as the first one, and hands it back as it found it", async ({
    database,
    other,
  }) => {
    const before = await pooledListeners(database.warehouse);
    const held = await acquireStreamLocks(database.warehouse, [{ account: "acme", stream: "retaken" }], {
      timeoutMs: 0,
      runId: 90,
    });
    // Released however the test ends: a watcher left holding would try to take its locks again
    // while the file's database is dropped.
    try {
      const retaken = new Promise<PoolClient>((resolve) => database.warehouse.pool.once("acquire", resolve));
      await other.pool.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'telecom-etl run 90 %'",
      );
      const client = await retaken;
      await vi.waitFor(() => expect(held.sessions).toBe(2), { timeout: 10_000 });
      // The session's own guard and the watcher's listener: release() removes the watcher's before it
      // closes the session, and the guard keeps an error meanwhile from being an unhandled event.
      expect(client.listenerCount("error")).toBe(before.error + 2);
    } finally {
      await held.release();
    }
    expect(await pooledListeners(database.warehouse)).toEqual(before);
  });

  it("survives the server dropping its lock connection, and release() still returns", async ({
    database,
    other,
  }) => {
    const key = { account: "acme", stream: "calls-lost" };
    // The pool hands acquireStreamLocks its dedicated connection: keep hold of it to see it end.
    const lockClient = new Promise<PoolClient>((resolve) => database.warehouse.pool.once("acquire", resolve));
    const held = await acquireStreamLocks(database.warehouse, [key], { timeoutMs: 0, runId: 61 });
    // pg emits 'end' right after the connection's 'error'. No 'error' listener here: only the one
    // acquireStreamLocks attached stands between that error and an unhandled error failing the run;
    // without it 'end' never comes, so the wait gives up after 10 s and the release still runs.
    const client = await lockClient;
    const ended = new Promise<void>((resolve) => {
      client.once("end", () => resolve());
      setTimeout(resolve, 10_000).unref();
    });
    const killed = await database.warehouse.pool.query(
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'telecom-etl run 61 %'",
    );
    expect(killed.rows).toEqual([{ ok: true }]);
    await ended;
    await held.release();
    const again = await acquireStreamLocks(other, [key], { timeoutMs: 0, runId: 62 });
    await again.release();
  });

  it("a lock session cut off by the network, its server session still holding the locks: that session is ended and the locks taken again", async ({
    database,
    other,
  }) => {
    const relay = await startCuttableRelay(database.url);
    let cutOff: Warehouse | undefined;
    try {
      cutOff = await connectWarehouse(relay.url);
      const key = { account: "acme", stream: "cdrs-cut" };
      const held = await acquireStreamLocks(cutOff, [key], { timeoutMs: 0, runId: 71 });
      const sessions = () =>
        database.warehouse.pool
          .query<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'telecom-etl run 71 %'",
          )
          .then((result) => result.rows.map((row) => row.pid));
      const [before] = await sessions();
      relay.cutClients();
      // The server still has the old session, with the lock: the run must not take it for another run's.
      // Until the old session is ended and the lock taken on a new one: one session, not the old.
      await expect
        .poll(async () => (await sessions()).map((pid) => pid === before), { interval: 20, timeout: 10_000 })
        .toEqual([false]);
      const fenceClient = await cutOff.pool.connect();
      try {
        await held.fence(fenceClient, key);
      } finally {
        fenceClient.release();
      }
      expect(held.lost.aborted).toBe(false);
      await expect(acquireStreamLocks(other, [key], { timeoutMs: 0, runId: 72 })).rejects.toThrow(/run 71\)/);
      await held.release();
    } finally {
      await cutOff?.close();
      await relay.close();
    }
  });

  it("keeps no lock while it waits, and gets them all once the holder lets go within the timeout", async ({
    database,
    other,
  }) => {
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

  it("gives up after the timeout", async ({ database, other }) => {
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
