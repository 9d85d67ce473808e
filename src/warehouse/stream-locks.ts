import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";
import { LockHeldError } from "../errors.js";
import { realSleep, type Sleep } from "../ports.js";
import type { Warehouse } from "./connect-warehouse.js";

/** One (account, stream) a run needs for itself. */
export interface StreamLockKey {
  readonly account: string;
  readonly stream: string;
}

/** Locks held by this process; release them when the run ends. */
export interface StreamLocks {
  release(): Promise<void>;
}

/** The 64-bit advisory lock key of (account, stream), as a decimal string for `::bigint`. */
export function streamLockKey(key: StreamLockKey): string {
  const digest = createHash("sha256")
    .update(`telecom-etl stream lock\u0000${key.account}\u0000${key.stream}`)
    .digest();
  return digest.readBigInt64BE(0).toString();
}

/** `application_name` of a run's lock connection: other runs read it back to say who holds a lock. */
export function lockApplicationName(runId: number, pid = process.pid, host = hostname()): string {
  return `${lockSessionPrefix(runId)}${pid}@${host}`.slice(0, 63);
}

/**
 * How the `application_name` of run `runId`'s lock connection begins: a database session named so
 * means the run is alive (its process holds that connection until it has recorded its end).
 */
export function lockSessionPrefix(runId: number): string {
  return `telecom-etl run ${runId} pid `;
}

/** The process holding a stream lock, as a blocked run reports it. */
export interface Holder {
  readonly pid: string;
  readonly host: string;
  readonly run: string;
}

/**
 * Who holds advisory lock `lockKey` in this database, from pg_locks and pg_stat_activity (null if
 * nobody now). Advisory locks are per database: the same key held in another warehouse on the same
 * server is somebody else's. Exported for tests.
 */
export async function findHolder(client: pg.PoolClient, lockKey: string): Promise<Holder | null> {
  const result = await client.query<{ application_name: string; pid: number; client_addr: string | null }>(
    `SELECT a.application_name, a.pid, host(a.client_addr) AS client_addr
     FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND ((l.classid::bigint << 32) | l.objid::bigint) = $1::bigint
     LIMIT 1`,
    [lockKey],
  );
  const row = result.rows[0];
  if (!row) return null;
  const parsed = /^telecom-etl run (\d+) pid (\d+)@(.*)$/.exec(row.application_name);
  if (parsed) return { run: parsed[1]!, pid: parsed[2]!, host: parsed[3]! };
  return { run: "unknown", pid: `backend ${row.pid}`, host: row.client_addr ?? "unknown" };
}

/**
 * Takes `pg_try_advisory_lock` for every (account, stream) on one dedicated connection (named after
 * the run, so a blocked run can name the holder). Retries every `pollMs` until `timeoutMs`, then
 * throws LockHeldError naming the holder. All-or-nothing: never keeps some locks while waiting.
 */
export async function acquireStreamLocks(
  warehouse: Warehouse,
  keys: readonly StreamLockKey[],
  options: { timeoutMs: number; runId: number; pollMs?: number; sleep?: Sleep; now?: () => number },
): Promise<StreamLocks> {
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 500;
  const deadline = now() + Math.max(0, options.timeoutMs);
  const unique = [...new Map(keys.map((k) => [streamLockKey(k), k])).entries()].sort(([a], [b]) =>
    a < b ? -1 : 1,
  );
  const client = await warehouse.pool.connect();
  // The lock connection stays checked out for the whole run; if the server drops it (restart,
  // pg_terminate_backend) the locks are gone with it, and the error must not crash the process
  // as an unhandled 'error' event. release() then finds the connection dead and discards it.
  const onConnectionLost = () => {};
  client.on("error", onConnectionLost);
  const detach = () => client.off("error", onConnectionLost);
  const giveUp = async (error: unknown): Promise<never> => {
    await client.query("SELECT pg_advisory_unlock_all()").catch(() => {});
    await client.query("RESET application_name").catch(() => {});
    detach();
    client.release();
    throw error;
  };
  try {
    await client.query("SELECT set_config('application_name', $1, false)", [
      lockApplicationName(options.runId),
    ]);
  } catch (error) {
    return giveUp(error);
  }
  for (;;) {
    let blocked: [string, StreamLockKey] | undefined;
    try {
      for (const entry of unique) {
        const got = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [
          entry[0],
        ]);
        if (!got.rows[0]?.ok) {
          blocked = entry;
          break;
        }
      }
      if (!blocked) break;
      await client.query("SELECT pg_advisory_unlock_all()");
    } catch (error) {
      return giveUp(error);
    }
    if (now() >= deadline) {
      const [lockKey, key] = blocked;
      const holder = await findHolder(client, lockKey).catch(() => null);
      const who = holder ? `pid ${holder.pid} on host ${holder.host}, run ${holder.run}` : "by another run";
      return giveUp(
        new LockHeldError(
          `stream ${key.stream} of account ${key.account} is already running (${who}); wait for it or use --lock-timeout`,
          { account: key.account, stream: key.stream },
        ),
      );
    }
    await sleep(Math.min(pollMs, Math.max(1, deadline - now())));
  }
  let released: Promise<void> | undefined;
  return {
    release: () =>
      (released ??= (async () => {
        try {
          await client.query("SELECT pg_advisory_unlock_all()");
          await client.query("RESET application_name");
          detach();
          client.release();
        } catch {
          // A dead connection has lost its locks already; drop it from the pool.
          detach();
          client.release(true);
        }
      })()),
  };
}
