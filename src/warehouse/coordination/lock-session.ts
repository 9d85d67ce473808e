/**
 * The database session a run's advisory locks live on. Session-level advisory locks vanish with
 * their session, so the session is protected from the server's idle timeouts, kept busy by a
 * keep-alive query, and watched: when it ends anyway (a restart, `pg_terminate_backend`), the locks
 * are taken again at once on a new session, or declared lost for good when another run took one.
 */
import type pg from "pg";
import { describeError, LockLostError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import { linearBackoff, type RetryLoopPolicy, retryLoop } from "../../core/retry.js";
import type { Warehouse } from "../connection/connect-warehouse.js";
import { describeHolder, findHolder } from "./lock-holder.js";
import type { StreamLockKey, StreamLocks } from "./run-locks.js";

/** A lock key as Postgres sees it (decimal bigint text) with the (account, stream) it stands for. */
export type LockEntry = readonly [lockKey: string, key: StreamLockKey];

/**
 * Retakes of a lost lock session: any failure (the warehouse unreachable, the lost session still
 * holding the locks) is tried again on a new session, 5 sessions in all before the locks count as
 * lost, 200 ms more before each further one.
 */
const RETAKE_RETRY: RetryLoopPolicy = {
  maxAttempts: 5,
  delayMs: linearBackoff({ stepMs: 200, maxMs: 5_000 }),
  retryable: () => true,
};

/**
 * Reopening a lost session that holds no lock: it has nothing to lose, so it is tried until the
 * warehouse answers or the run ends (the abort of release()), at most 5 s apart.
 */
const REOPEN_RETRY: RetryLoopPolicy = { ...RETAKE_RETRY, maxAttempts: Number.POSITIVE_INFINITY };

/**
 * `pg_try_advisory_lock` of every entry on `client`, in order. All-or-nothing: when one is held
 * elsewhere, the ones taken are let go and that entry is returned; undefined when all were taken.
 */
export async function tryLockAll(
  client: pg.ClientBase,
  entries: readonly LockEntry[],
): Promise<LockEntry | undefined> {
  for (const entry of entries) {
    const got = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [
      entry[0],
    ]);
    if (!got.rows[0]?.ok) {
      await client.query("SELECT pg_advisory_unlock_all()");
      return entry;
    }
  }
  return undefined;
}

/** A session opened for locks, not yet watched. */
export interface LockSession {
  readonly client: pg.PoolClient;
  /** Lets every lock go and returns the connection to the pool (or drops it when it is dead). */
  close(): Promise<void>;
  /** Hands the session, which now holds `entries`, to a watcher. */
  watch(
    entries: readonly LockEntry[],
    options: { applicationName: string; heartbeatMs: number; log?: Logger | undefined },
  ): StreamLocks;
}

/**
 * Checks out a dedicated connection, names it (other runs read the name back to say who holds a
 * lock) and turns off the server's idle timeouts for it: a run's lock session is idle on purpose.
 */
export async function openLockSession(warehouse: Warehouse, applicationName: string): Promise<LockSession> {
  const client = await prepareSession(warehouse, applicationName);
  return {
    client,
    close: () => closeSession(client),
    watch: (entries, options) => new WatchedLocks(warehouse, client, entries, options),
  };
}

/** A pool connection made ready to hold locks; errors on it never become unhandled 'error' events. */
async function prepareSession(warehouse: Warehouse, applicationName: string): Promise<pg.PoolClient> {
  const client = await warehouse.pool.connect();
  client.on("error", ignore);
  try {
    await client.query("SELECT set_config('application_name', $1, false)", [applicationName]);
    // Servers before PostgreSQL 14 have no idle_session_timeout: nothing to turn off there.
    await client
      .query("SELECT set_config('idle_session_timeout', '0', false)")
      .catch(() => client.query("SELECT 1"));
    await client.query("SELECT set_config('idle_in_transaction_session_timeout', '0', false)");
    return client;
  } catch (error) {
    client.off("error", ignore);
    client.release(true);
    throw error;
  }
}

async function closeSession(client: pg.PoolClient): Promise<void> {
  try {
    await client.query("SELECT pg_advisory_unlock_all()");
    await client.query("RESET application_name");
    client.off("error", ignore);
    client.release();
  } catch {
    // A dead connection has lost its locks already; drop it from the pool.
    client.off("error", ignore);
    client.release(true);
  }
}

function ignore(): void {}

const HELD_BY_SESSION = `
  SELECT EXISTS (
    SELECT 1 FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = $1
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND ((classid::bigint << 32) | objid::bigint) = $2::bigint
  ) AS held`;

type State = "held" | "retaking" | "lost" | "released";

/** The watcher of a run's lock session (see the module comment). */
class WatchedLocks implements StreamLocks {
  readonly #warehouse: Warehouse;
  readonly #entries: readonly LockEntry[];
  readonly #applicationName: string;
  readonly #log: Logger | undefined;
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  #client: pg.PoolClient;
  #backendPid: Promise<number>;
  #state: State = "held";
  #retake: Promise<void> | undefined;
  /** Aborted by release(): a reopening still trying gives up (the run has ended). */
  readonly #ending = new AbortController();
  #lostError: LockLostError | undefined;
  #beating = false;
  #sessions = 1;

  constructor(
    warehouse: Warehouse,
    client: pg.PoolClient,
    entries: readonly LockEntry[],
    options: { applicationName: string; heartbeatMs: number; log?: Logger | undefined },
  ) {
    this.#warehouse = warehouse;
    this.#entries = entries;
    this.#applicationName = options.applicationName;
    this.#log = options.log;
    this.#client = client;
    this.#backendPid = this.#adopt(client);
    this.#timer = setInterval(() => void this.#heartbeat(), options.heartbeatMs);
    this.#timer.unref();
  }

  get lost(): AbortSignal {
    return this.#controller.signal;
  }

  get sessions(): number {
    return this.#sessions;
  }

  async fence(client: pg.ClientBase, key: StreamLockKey): Promise<void> {
    const entry = this.#entries.find(([, k]) => k.account === key.account && k.stream === key.stream);
    if (!entry) throw new Error(`this run took no lock for stream ${key.stream} of account ${key.account}`);
    for (let check = 0; check < 2; check++) {
      if (this.#state === "retaking") await this.#retake;
      if (this.#state === "lost") throw this.#lostError!;
      if (this.#state === "released") throw new Error("the run's locks were released");
      const pid = await this.#backendPid.catch(() => -1);
      const result = await client.query<{ held: boolean }>(HELD_BY_SESSION, [pid, entry[0]]);
      if (result.rows[0]?.held === true) return;
      // The session ended and its end has not reached us yet: treat it as lost, then look again.
      this.#onSessionLost(new Error("its lock was no longer held"));
    }
    throw new LockLostError(
      `stream ${key.stream} of account ${key.account}: this run no longer holds its lock`,
      key,
    );
  }

  async release(): Promise<void> {
    if (this.#state === "released") return;
    this.#ending.abort();
    if (this.#state === "retaking") await this.#retake;
    const wasHeld = this.#state === "held";
    this.#state = "released";
    clearInterval(this.#timer);
    this.#client.off("end", this.#onEnd);
    this.#client.off("error", this.#onError);
    // The pooled connection outlives this run: it goes back with only the guard prepareSession
    // attached (closeSession removes it), never this watcher's listeners. Adding a guard here too
    // left one more listener on the connection per run (MaxListenersExceededWarning after ten).
    if (wasHeld) await closeSession(this.#client);
  }

  #adopt(client: pg.PoolClient): Promise<number> {
    this.#client = client;
    client.on("error", this.#onError);
    client.on("end", this.#onEnd);
    const pid = client
      .query<{ pid: number }>("SELECT pg_backend_pid() AS pid")
      .then((result) => result.rows[0]!.pid);
    pid.catch((error: unknown) => this.#onSessionLost(error));
    return pid;
  }

  readonly #onError = (error: Error) => this.#onSessionLost(error);
  readonly #onEnd = () => this.#onSessionLost(new Error("the connection ended"));

  async #heartbeat(): Promise<void> {
    if (this.#state !== "held" || this.#beating) return;
    this.#beating = true;
    const client = this.#client;
    try {
      await client.query("SELECT 1");
    } catch (error) {
      if (client === this.#client) this.#onSessionLost(error);
    } finally {
      this.#beating = false;
    }
  }

  #onSessionLost(reason: unknown): void {
    if (this.#state !== "held") return;
    this.#state = "retaking";
    const dead = this.#client;
    dead.off("error", this.#onError);
    dead.off("end", this.#onEnd);
    dead.release(true);
    this.#retake = this.#retakeLocks(describeError(reason));
  }

  /**
   * Takes every lock again on a new session. The server may not have ended the lost session yet
   * (a terminated backend still holds its locks for a moment after its client saw the end; one cut
   * off by the network holds them until the server notices): when the holder is that session, it
   * is ended here and the locks asked again, never reported as another run's. That session is
   * told by its name: the run's lock session is named after the run, pid and host, and the run has
   * no other (its own server pid may never have been read, when the session was cut at once). A
   * lock held by no session that can be named is asked again (the ending session's last moment).
   * A session that holds no lock (a distributed coordinator's: its name alone says the run is alive)
   * has nothing to lose: it is opened again until the warehouse answers (a restart) or the run ends.
   */
  async #retakeLocks(reason: string): Promise<void> {
    const holdsNone = this.#entries.length === 0;
    try {
      await retryLoop(() => this.#retakeOnce(reason, holdsNone), holdsNone ? REOPEN_RETRY : RETAKE_RETRY, {
        signal: holdsNone ? this.#ending.signal : undefined,
      });
    } catch (error) {
      if (holdsNone && this.#ending.signal.aborted) return;
      const [, key] = this.#entries[0]!;
      this.#loseForGood(
        new LockLostError(
          `lost the locks of this run (its database session ended: ${reason}) and could not take them again: ${describeError(error)}; this run stopped starting windows`,
          key,
        ),
      );
    }
  }

  /**
   * One new session of {@link #retakeLocks}: it takes every lock and becomes the run's session, or
   * finds another run holding one (lost for good). Throws, to be tried again, when the warehouse
   * does not answer or the lost session still holds the locks (then it is ended here).
   */
  async #retakeOnce(reason: string, holdsNone: boolean): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await prepareSession(this.#warehouse, this.#applicationName);
      const blocked = await tryLockAll(client, this.#entries);
      if (blocked === undefined) {
        // prepareSession's guard stays until closeSession, as on the first session: release()
        // removes the watcher's listeners first, and the connection is never without one.
        this.#backendPid = this.#adopt(client);
        this.#sessions++;
        this.#state = "held";
        this.#log?.warn(
          { reason },
          holdsNone
            ? "the run's database session was lost; it was opened again"
            : "the lock session was lost; every lock was taken again on a new session",
        );
        return;
      }
      const holder = await findHolder(client, blocked[0]).catch(() => null);
      // No session named: the lock was freed since it was asked, or its holder is a backend
      // already gone from pg_stat_activity but not yet past releasing its locks (an ending
      // backend leaves the activity view first): the lost session's end, so ask again.
      if (holder === null) throw new Error("the lock's holder ended while it was looked up");
      if (holder.applicationName === this.#applicationName) {
        await client.query("SELECT pg_terminate_backend($1)", [holder.backendPid]).catch(ignore);
        throw new Error(`the lost session (server process ${holder.backendPid}) still held them`);
      }
      await closeSession(client);
      const [, key] = blocked;
      this.#loseForGood(
        new LockLostError(
          `lost the lock of stream ${key.stream} of account ${key.account} (its database session ended: ${reason}) and another run holds it now (${describeHolder(holder)}); this run stopped starting windows`,
          key,
        ),
      );
    } catch (error) {
      if (client) await closeSession(client);
      throw error;
    }
  }

  #loseForGood(error: LockLostError): void {
    this.#state = "lost";
    this.#lostError = error;
    clearInterval(this.#timer);
    this.#log?.error({ account: error.context.account, stream: error.context.stream }, error.message);
    this.#controller.abort(error);
  }
}
