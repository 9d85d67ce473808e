/**
 * One transform at a time per warehouse: `transform` (and the transform step of `nightly` and
 * `demo`) takes a session-level advisory lock before it touches the build schema and keeps it until
 * the marts are published. A second one waits up to its `--lock-timeout`, then stops with exit 4
 * naming the holder. The lock lives on a dedicated session named after its holder (as the loader's
 * stream locks do, see `stream-locks.ts`), so the server releases it when the process dies.
 */
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type { Transaction } from "kysely";
import { sql } from "kysely";
import { LockHeldError, LockLostError } from "../../core/errors.js";
import { realSleep, type Sleep } from "../../core/ports.js";
import type { Warehouse } from "../connection/connect-warehouse.js";
import type { Database } from "../connection/database.js";
import { describeHolder, findHolder } from "./lock-holder.js";
import { openLockSession } from "./lock-session.js";
import { lockApplicationName } from "./stream-locks.js";

/** The advisory lock key of the transform (a decimal bigint, distinct from every stream lock's key). */
export const TRANSFORM_LOCK_KEY = createHash("sha256")
  .update("telecom-etl transform lock")
  .digest()
  .readBigInt64BE(0)
  .toString();

/** The `application_name` of a lone transform's lock session; a nightly's uses its run's name. */
export function transformApplicationName(pid = process.pid, host = hostname()): string {
  return `telecom-etl transform pid ${pid}@${host}`.slice(0, 63);
}

/** The transform lock, held. */
export interface TransformLock {
  /**
   * Checks, inside the publishing transaction, that this process still holds the lock (its session
   * may have been ended by the server meanwhile); throws LockLostError otherwise.
   */
  fence(trx: Transaction<Database>): Promise<void>;
  release(): Promise<void>;
}

/** Options of {@link acquireTransformLock}. */
export interface TransformLockOptions {
  /** How long to wait for another transform (0: fail at once). */
  readonly timeoutMs: number;
  /** The run this transform belongs to (`nightly`, `demo`), named to a blocked transform. */
  readonly runId?: number | undefined;
  readonly pollMs?: number;
  readonly sleep?: Sleep;
  readonly now?: () => number;
}

/**
 * Takes the transform lock, polling every `pollMs` until `timeoutMs`; then throws LockHeldError
 * naming the transform that holds it.
 */
export async function acquireTransformLock(
  warehouse: Warehouse,
  options: TransformLockOptions,
): Promise<TransformLock> {
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  const deadline = now() + Math.max(0, options.timeoutMs);
  const name = options.runId === undefined ? transformApplicationName() : lockApplicationName(options.runId);
  const session = await openLockSession(warehouse, name);
  try {
    for (;;) {
      const got = await session.client.query<{ ok: boolean }>(
        "SELECT pg_try_advisory_lock($1::bigint) AS ok",
        [TRANSFORM_LOCK_KEY],
      );
      if (got.rows[0]?.ok) break;
      if (now() >= deadline) {
        const holder = await findHolder(session.client, TRANSFORM_LOCK_KEY).catch(() => null);
        throw new LockHeldError(
          `another transform is building the marts (${describeHolder(holder)}); wait for it to finish, or give --lock-timeout <seconds> to wait`,
        );
      }
      await sleep(Math.min(options.pollMs ?? 500, Math.max(1, deadline - now())));
    }
  } catch (error) {
    await session.close();
    throw error;
  }
  const pid = (await session.client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  let released: Promise<void> | undefined;
  return {
    async fence(trx) {
      const held = await sql<{ held: boolean }>`
        SELECT EXISTS (
          SELECT 1 FROM pg_catalog.pg_locks
          WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = ${pid}
            AND database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
            AND ((classid::bigint << 32) | objid::bigint) = ${TRANSFORM_LOCK_KEY}::bigint
        ) AS held`.execute(trx);
      if (held.rows[0]?.held !== true) {
        throw new LockLostError(
          "this transform lost its lock (its database session ended) before publishing; another transform may be building: nothing was published",
        );
      }
    },
    release: () => {
      released ??= session.close();
      return released;
    },
  };
}
