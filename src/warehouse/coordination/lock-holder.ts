import type pg from "pg";

/** The process holding a stream lock, as a blocked run reports it. */
export interface Holder {
  readonly pid: string;
  readonly host: string;
  readonly run: string;
  /** The holding session's server process (pg_backend_pid). */
  readonly backendPid: number;
  /** The holding session's application_name (a run's lock session is named after the run). */
  readonly applicationName: string;
}

/**
 * Who holds advisory lock `lockKey` in this database, from pg_locks and pg_stat_activity (null if
 * nobody now). Advisory locks are per database: the same key held in another warehouse on the same
 * server is somebody else's. Exported for tests.
 */
export async function findHolder(client: pg.ClientBase, lockKey: string): Promise<Holder | null> {
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
  const session = { backendPid: row.pid, applicationName: row.application_name };
  if (parsed) return { run: parsed[1]!, pid: parsed[2]!, host: parsed[3]!, ...session };
  // A `transform` started alone records no run (src/warehouse/coordination/transform-lock.ts).
  const transform = /^telecom-etl transform pid (\d+)@(.*)$/.exec(row.application_name);
  if (transform) return { run: "none (transform)", pid: transform[1]!, host: transform[2]!, ...session };
  return { run: "unknown", pid: `backend ${row.pid}`, host: row.client_addr ?? "unknown", ...session };
}

/** "pid 123 on host h, run 7", or "by another run" when nobody can be named. */
export function describeHolder(holder: Holder | null): string {
  return holder ? `pid ${holder.pid} on host ${holder.host}, run ${holder.run}` : "by another run";
}
