/**
 * A deadline on every statement a load sends on one connection, enforced by the loader itself.
 * The server's `statement_timeout` cannot end every stall: a COPY whose data stops arriving waits
 * in the server with cancels held off until the next message, and an answer lost on the way back
 * (a stalled proxy, a dead NAT entry) leaves the server done and the loader waiting. So when a
 * statement is not answered in time, the loader closes the socket: every query of the connection
 * fails at once, the server rolls the transaction back (and frees its locks) when it notices, and
 * the caller loads the slice again on a new connection.
 */
import type pg from "pg";

/** Extra time the loader gives the server to report its own statement timeout before closing the socket. */
export const DEADLINE_GRACE_MS = 2_000;

/** The deadline on one checked-out connection; `release` before the connection goes back to the pool. */
export interface StatementDeadline {
  /** True once a statement ran past the deadline and the connection was closed. */
  readonly expired: boolean;
  /** Stops watching (the connection's own `query` is restored). */
  release(): void;
}

type QueryResult = { then?: unknown; once?: unknown } | undefined;

/**
 * Watches every `client.query` from now until `release`: a statement (a COPY stream included) not
 * finished `deadlineMs` after it was sent makes the connection's socket close.
 */
export function watchStatements(client: pg.PoolClient, deadlineMs: number): StatementDeadline {
  let expired = false;
  const expire = () => {
    expired = true;
    // Closing the socket errors every query of the client ("Connection terminated unexpectedly").
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  };
  const query = client.query.bind(client) as (...args: unknown[]) => QueryResult;
  const watched = (...args: unknown[]): QueryResult => {
    const result = query(...args);
    const timer = setTimeout(expire, deadlineMs);
    const done = () => clearTimeout(timer);
    if (result !== undefined && typeof result.then === "function") {
      (result as Promise<unknown>).then(done, done);
    } else if (result !== undefined && typeof result.once === "function") {
      // A COPY stream: finished once the server acknowledged it, or failed.
      const stream = result as NodeJS.EventEmitter;
      for (const event of ["finish", "error", "close"]) stream.once(event, done);
    } else {
      done();
    }
    return result;
  };
  Object.defineProperty(client, "query", { value: watched, configurable: true, writable: true });
  return {
    get expired() {
      return expired;
    },
    release() {
      delete (client as unknown as { query?: unknown }).query;
    },
  };
}
