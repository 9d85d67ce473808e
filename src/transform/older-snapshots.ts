/**
 * The publication's wait for snapshots older than the build. A publication moves the built marts
 * into the published schema; Postgres resolves a table's name through the catalog as it is now,
 * but reads its rows through the transaction's snapshot. A REPEATABLE READ (or SERIALIZABLE)
 * transaction whose snapshot was taken before the build committed its rows would therefore find
 * the new marts and none of their rows: every mart empty (issue 32 item 12). So a publication
 * first waits, bounded, until no such transaction is left; READ COMMITTED statements take a new
 * snapshot (and their locks) at their start, and an idle session holds none.
 */
import { type Kysely, sql } from "kysely";
import { PublishError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import type { Database } from "../warehouse/connection/database.js";

/** How often the wait looks at the sessions again. */
const POLL_MS = 500;

/** A session of the warehouse's database that may hold a snapshot from before the build. */
export interface OlderSnapshot {
  readonly pid: number;
  /** Its role. */
  readonly user: string | null;
  /** When its transaction began (UTC); null when hidden. */
  readonly since: Date | null;
  /** Whether its details are hidden from the warehouse user (then any open transaction counts). */
  readonly hidden: boolean;
}

/**
 * The sessions of this database that may hold a snapshot taken before `builtAt` (a timestamp the
 * server took after the build's last commit): a client backend with a snapshot (`backend_xmin`)
 * in a transaction begun before it. Not the loader's own sessions (`telecom-etl…`: its pool, lock
 * sessions, another run loading), not autovacuum or other background processes, not this session.
 * Another role's session the warehouse user may not see (neither superuser nor pg_read_all_stats
 * member) counts while it is inside a transaction (it holds its virtual transaction id's lock,
 * which pg_locks shows to everyone): whether it holds an older snapshot cannot be told.
 */
export async function olderSnapshots(db: Kysely<Database>, builtAt: string): Promise<OlderSnapshot[]> {
  const found = await sql<{ pid: number; user: string | null; since: Date | null; hidden: boolean }>`
    SELECT a.pid, a.usename::text AS user, a.xact_start AS since, a.backend_type IS NULL AS hidden
    FROM pg_catalog.pg_stat_activity AS a
    WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
      AND NOT starts_with(coalesce(a.application_name, ''), 'telecom-etl')
      AND CASE WHEN a.backend_type IS NULL
        -- Hidden: a role's session (background processes have no role) inside a transaction.
        THEN a.usesysid IS NOT NULL AND EXISTS (SELECT FROM pg_catalog.pg_locks AS l
          WHERE l.pid = a.pid AND l.locktype = 'virtualxid' AND l.granted)
        ELSE a.backend_type = 'client backend' AND a.backend_xmin IS NOT NULL
          AND a.xact_start < ${builtAt}::timestamptz
      END
    ORDER BY a.xact_start NULLS LAST, a.pid`.execute(db);
  return found.rows.map((r) => ({ ...r, pid: Number(r.pid) }));
}

/** Options of {@link waitForOlderSnapshots}. */
export interface SnapshotWaitOptions {
  /** Longest wait; 0 looks once. */
  readonly waitMs: number;
  readonly log?: Logger | undefined;
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

/**
 * Waits until no session holds a snapshot from before now ({@link olderSnapshots}; call it after
 * the build's last commit, before publishing). Returns how long it waited; throws
 * {@link PublishError} (exit 5: nothing published, BI keeps the previous marts) when such a
 * session is still there after `waitMs`.
 */
export async function waitForOlderSnapshots(
  db: Kysely<Database>,
  options: SnapshotWaitOptions,
): Promise<number> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = Date.now();
  const now = await sql<{ at: string }>`SELECT clock_timestamp()::text AS at`.execute(db);
  const builtAt = now.rows[0]!.at;
  let logged = false;
  for (;;) {
    const older = await olderSnapshots(db, builtAt);
    const waited = Date.now() - started;
    if (older.length === 0) {
      if (logged) options.log?.info({ waitedMs: waited }, "publication: the older snapshots ended");
      return waited;
    }
    if (waited >= options.waitMs) {
      throw new PublishError(
        `marts built and tested but not published: ${describeSessions(older)} kept a snapshot from before the build through the ${Math.round(options.waitMs / 1000)} s wait (publish_snapshot_wait_seconds), and would have read every new mart empty; BI still sees the previous marts; end those transactions (pg_terminate_backend) or run \`telecom-etl transform\` again${
          older.some((s) => s.hidden)
            ? "; the warehouse user cannot see other roles' sessions, so any open transaction counts: GRANT pg_read_all_stats TO it"
            : ""
        }`,
      );
    }
    if (!logged) {
      options.log?.info(
        { sessions: older, waitMs: options.waitMs },
        `publication waits for ${describeSessions(older)} holding a snapshot from before the build (a REPEATABLE READ or SERIALIZABLE transaction would read the new marts empty)`,
      );
      logged = true;
    }
    await sleep(Math.min(POLL_MS, options.waitMs - waited));
  }
}

/** "2 sessions (pid 4242 of bi_reader since 2026-…, pid 4243 hidden)". */
function describeSessions(sessions: readonly OlderSnapshot[]): string {
  const shown = sessions
    .slice(0, 3)
    .map((s) =>
      s.hidden
        ? `pid ${s.pid} of ${s.user ?? "?"}, in a transaction it cannot see into`
        : `pid ${s.pid} of ${s.user ?? "?"} since ${s.since?.toISOString() ?? "?"}`,
    );
  const more = sessions.length > shown.length ? `, ${sessions.length - shown.length} more` : "";
  return `${sessions.length} session${sessions.length === 1 ? "" : "s"} (${shown.join("; ")}${more})`;
}
