import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { LockHeldError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import { realSleep, type Sleep } from "../../core/ports.js";
import type { Warehouse } from "../connection/connect-warehouse.js";
import { describeHolder, findHolder } from "./lock-holder.js";
import { type LockEntry, openLockSession, tryLockAll } from "./lock-session.js";
import type { StreamLockKey, StreamLocks } from "./run-locks.js";

export { findHolder, type Holder } from "./lock-holder.js";
export type { StreamLockKey, StreamLocks } from "./run-locks.js";

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

/** Options of {@link acquireStreamLocks}. */
export interface AcquireOptions {
  /** How long to wait for a lock another run holds (0: fail at once). */
  readonly timeoutMs: number;
  readonly runId: number;
  readonly pollMs?: number;
  readonly sleep?: Sleep;
  readonly now?: () => number;
  /** Interval of the keep-alive query on the lock session (default 5 s). */
  readonly heartbeatMs?: number;
  readonly log?: Logger;
}

/**
 * Takes `pg_try_advisory_lock` for every (account, stream) on one dedicated session (named after
 * the run, so a blocked run can name the holder). Retries every `pollMs` until `timeoutMs`, then
 * throws LockHeldError naming the holder. All-or-nothing: never keeps some locks while waiting.
 */
export async function acquireStreamLocks(
  warehouse: Warehouse,
  keys: readonly StreamLockKey[],
  options: AcquireOptions,
): Promise<StreamLocks> {
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 500;
  const deadline = now() + Math.max(0, options.timeoutMs);
  const unique = [...new Map(keys.map((k) => [streamLockKey(k), k])).entries()].sort(([a], [b]) =>
    a < b ? -1 : 1,
  );
  const session = await openLockSession(warehouse, lockApplicationName(options.runId));
  for (;;) {
    let blocked: LockEntry | undefined;
    try {
      blocked = await tryLockAll(session.client, unique);
    } catch (error) {
      await session.close();
      throw error;
    }
    if (!blocked) break;
    if (now() >= deadline) {
      const [lockKey, key] = blocked;
      const holder = await findHolder(session.client, lockKey).catch(() => null);
      await session.close();
      throw new LockHeldError(
        `stream ${key.stream} of account ${key.account} is already running (${describeHolder(holder)}); wait for it or use --lock-timeout`,
        { account: key.account, stream: key.stream },
      );
    }
    try {
      await sleep(Math.min(pollMs, Math.max(1, deadline - now())));
    } catch (error) {
      await session.close();
      throw error;
    }
  }
  return session.watch(unique, {
    applicationName: lockApplicationName(options.runId),
    heartbeatMs: options.heartbeatMs ?? 5_000,
    log: options.log,
  });
}
