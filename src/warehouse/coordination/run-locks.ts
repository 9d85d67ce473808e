/**
 * What a run's stream locks promise its loads: the (account, stream) keys and the StreamLocks a run
 * holds them by. Taken by stream-locks.ts, kept by the watched session of lock-session.ts.
 */
import type pg from "pg";

/** One (account, stream) a run needs for itself. */
export interface StreamLockKey {
  readonly account: string;
  readonly stream: string;
}

/**
 * The locks a run holds, on one database session that is kept alive and watched. If the server
 * drops that session (restart, `pg_terminate_backend`, `idle_session_timeout`), the locks are taken
 * again on a new session at once; if another run took one meanwhile, they are lost for good:
 * `lost` aborts (its reason a LockLostError naming the holder) and `fence` refuses every commit.
 */
export interface StreamLocks {
  /** Aborted once the locks are lost for good; the run must start no new work. */
  readonly lost: AbortSignal;
  /**
   * How many sessions the locks have been held on (1, plus one per re-take): while it stays the
   * same, no other run can have written the locked streams since the run took them.
   */
  readonly sessions: number;
  /**
   * Resolves when this run holds the lock of `key` right now (waiting for a re-take in progress);
   * throws LockLostError otherwise. Called inside a load transaction just before its commit, so
   * no window is ever written by a run that no longer holds its stream.
   */
  fence(client: pg.ClientBase, key: StreamLockKey): Promise<void>;
  release(): Promise<void>;
}
