/**
 * A run whose process died without recording its end (SIGKILL, an OOM kill, a lost host) stays
 * `running` in `etl.runs`. Every command that records a run (and `status`) first marks such runs
 * `abandoned`, and with it the run's `etl.run_streams` rows still `running`, so the run history
 * and `status` tell the truth. The rule never marks a live run:
 *
 * 1. A run whose lock connection is open is alive, wherever it runs. Each run holds a connection
 *    named `telecom-etl run <id> pid …` (see stream-locks.ts) from just after its start until after
 *    it has recorded its end, and Postgres ends that session when the process dies. Such a run is
 *    never touched, whatever its age or host.
 * 2. Otherwise, a run recorded with this host is abandoned when its pid is not alive here, or when
 *    its pid is this process's own but this process did not start it (an earlier process that had
 *    the same pid: pid 1 in a container restarted under the same hostname).
 * 3. Otherwise (another host, or a pid since reused by an unrelated process), it is abandoned once
 *    it started more than `staleAfterHours` ago (default 6): a live run would hold its lock session.
 *
 * The only live run without a lock session is one in the milliseconds between recording its start
 * and opening that connection, and rules 2 and 3 cannot match it (its pid is alive, it is recent).
 * A run whose lock connection dropped while it goes on could be marked by rule 3; its own end then
 * overwrites the mark. The UPDATE re-checks `running` and the session, so a run that finishes or
 * connects meanwhile keeps its own status.
 */
import { type Kysely, sql } from "kysely";
import { describeError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import type { Database } from "../connection/database.js";
import { isRunOfThisProcess } from "../state/run-records.js";
import { lockSessionPrefix } from "./stream-locks.js";

/** Hours after which a `running` run without a lock session counts as abandoned whatever its host. */
export const DEFAULT_STALE_AFTER_HOURS = 6;

/** Who is asking (the host and pid as this process records them in `etl.runs`) and the rule's knobs. */
export interface AbandonedRunsOptions {
  readonly host: string;
  /** This process's pid (default `process.pid`). */
  readonly pid?: number;
  readonly staleAfterHours?: number;
  /** Whether a pid is alive on this host (default: `kill(pid, 0)`). */
  readonly isAlive?: (pid: number) => boolean;
}

/** A run marked abandoned, and why. */
export interface AbandonedRun {
  readonly id: number;
  readonly command: string;
  readonly host: string;
  readonly pid: number | null;
  readonly startedAt: Date;
  readonly reason: string;
}

/** Whether process `pid` exists on this host (EPERM: it exists, owned by someone else). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Marks every `running` run whose process is gone as `abandoned` (rule in the file comment); returns them. */
export async function markAbandonedRuns(
  db: Kysely<Database>,
  options: AbandonedRunsOptions,
): Promise<AbandonedRun[]> {
  const ownPid = options.pid ?? process.pid;
  const staleAfterHours = options.staleAfterHours ?? DEFAULT_STALE_AFTER_HOURS;
  const isAlive = options.isAlive ?? processIsAlive;
  const running = await sql<{
    id: number;
    command: string;
    host: string;
    pid: number | null;
    started_at: Date;
    stale: boolean;
  }>`
    SELECT id, command, host, pid, started_at,
           started_at < now() - make_interval(secs => ${staleAfterHours * 3600}) AS stale
    FROM etl.runs WHERE status = 'running' ORDER BY id`.execute(db);
  if (running.rows.length === 0) return [];
  const sessions = await sql<{ name: string }>`
    SELECT application_name AS name FROM pg_stat_activity
    WHERE datname = current_database() AND application_name LIKE 'telecom-etl run %'`.execute(db);
  const names = sessions.rows.map((row) => row.name);
  const candidates = new Map<number, AbandonedRun>();
  for (const run of running.rows) {
    const prefix = lockSessionPrefix(run.id);
    if (names.some((name) => name.startsWith(prefix))) continue;
    const reason = abandonReason(run, { host: options.host, ownPid, staleAfterHours, isAlive });
    if (reason === null) continue;
    candidates.set(run.id, {
      id: run.id,
      command: run.command,
      host: run.host,
      pid: run.pid,
      startedAt: new Date(run.started_at),
      reason,
    });
  }
  if (candidates.size === 0) return [];
  const ids = [...candidates.keys()];
  const prefixes = ids.map(lockSessionPrefix);
  // One statement: the run and the streams it left `running` are abandoned together.
  const marked = await sql<{ id: number }>`
    WITH runs AS (
      UPDATE etl.runs r
      SET status = 'abandoned',
          finished_at = COALESCE((SELECT max(s.finished_at) FROM etl.run_slices s WHERE s.run_id = r.id), r.started_at)
      FROM unnest(${ids}::bigint[], ${prefixes}::text[]) AS c(id, prefix)
      WHERE r.id = c.id AND r.status = 'running'
        AND NOT EXISTS (
          SELECT 1 FROM pg_stat_activity a
          WHERE a.datname = current_database() AND starts_with(a.application_name, c.prefix))
      RETURNING r.id
    ),
    streams AS (
      UPDATE etl.run_streams p SET status = 'abandoned'
      FROM runs WHERE p.run_id = runs.id AND p.status = 'running'
    )
    SELECT id FROM runs`.execute(db);
  return marked.rows.map((row) => candidates.get(Number(row.id))!).sort((a, b) => a.id - b.id);
}

function abandonReason(
  run: { id: number; host: string; pid: number | null; stale: boolean },
  here: { host: string; ownPid: number; staleAfterHours: number; isAlive: (pid: number) => boolean },
): string | null {
  const knownPid = run.pid !== null && Number.isInteger(run.pid) && run.pid > 0;
  if (knownPid && run.host === here.host) {
    if (run.pid === here.ownPid) {
      if (!isRunOfThisProcess(run.id)) return `pid ${run.pid} on host ${run.host} is now another process`;
    } else if (!here.isAlive(run.pid!)) {
      return `process ${run.pid} on host ${run.host} is gone`;
    }
  }
  if (run.stale) return `started more than ${here.staleAfterHours} h ago and holds no lock session`;
  return null;
}

/**
 * {@link markAbandonedRuns}, logging each run it marks; never throws (a failure is logged as a
 * warning: the command goes on, the next one tries again).
 */
export async function sweepAbandonedRuns(
  db: Kysely<Database>,
  options: AbandonedRunsOptions & { readonly log: Logger },
): Promise<AbandonedRun[]> {
  try {
    const marked = await markAbandonedRuns(db, options);
    for (const run of marked) {
      options.log.warn(
        { runId: run.id, command: run.command, host: run.host, pid: run.pid, reason: run.reason },
        `run ${run.id} (${run.command}) ended without recording it: marked abandoned`,
      );
    }
    return marked;
  } catch (error) {
    options.log.warn({ error: describeError(error) }, "could not check for abandoned runs");
    return [];
  }
}
