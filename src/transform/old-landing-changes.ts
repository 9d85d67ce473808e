/**
 * Landing changes the incremental marts would not see. A nightly build re-builds only each fact's
 * settle window (its latest built day − dbt var settle_days), but the loader can change older
 * landing rows: a re-counted window opened again and re-read, a `backfill`, replayed rejects, a row
 * moved out of an old day. {@link findOldLandingChanges} finds the changes the latest full build
 * did not read that lie before the window the next build re-builds; the transform then builds with
 * `--full-refresh`, so the published marts equal what a full refresh builds (docs/decisions/0089-old-landing-changes-rebuild-the-marts.md).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../warehouse/connection/database.js";

/**
 * dbt's var settle_days as the project builds it (the macros' default, `var('settle_days', 3)`;
 * dbt_project.yml does not set it). A unit test keeps the two equal.
 */
export const DBT_SETTLE_DAYS = 3;

/** Changed landing rows of one (stream or landing table, account) in days before the settle window. */
export interface OldLandingChange {
  /** The stream whose windows were re-read, or the landing table a row moved out of. */
  readonly source: string;
  readonly account: string;
  /** The first day changed (UTC). */
  readonly firstDay: string;
  /** The day after the last one changed (exclusive). */
  readonly endDay: string;
  /** Rows inserted, updated or deleted (for a move: rows moved). */
  readonly rows: number;
  readonly runIds: readonly number[];
}

/** What {@link findOldLandingChanges} found: the first day the next build re-builds, and the changes before it. */
export interface OldLandingChanges {
  /** The first UTC day every incremental fact re-builds incrementally (as the latest full build left them). */
  readonly settleWindowStart: string;
  readonly changes: readonly OldLandingChange[];
}

/**
 * The instant a build starts reading the landing tables, made conservative: the start of the
 * oldest open transaction of this role (the loader's). A load committed after it has its
 * `run_slices.finished_at` (its transaction's start) at or after this instant. Recorded with the
 * publication of a full build (`etl.published_marts.landing_seen_before`).
 */
export async function landingSeenBefore(db: Kysely<Database>): Promise<Date> {
  const { rows } = await sql<{ at: Date }>`
    SELECT least(now(), min(xact_start)) AS at FROM pg_catalog.pg_stat_activity
    WHERE datname = current_database() AND usename = current_user AND xact_start IS NOT NULL`.execute(db);
  return new Date(rows[0]!.at);
}

/** Where the latest full build's view of the landing ends; undefined before the first publication. */
async function lastBuildSaw(db: Kysely<Database>): Promise<Date | undefined> {
  const { rows } = await sql<{ since: Date | null }>`
    SELECT coalesce(
      (SELECT landing_seen_before FROM etl.published_marts
       WHERE landing_seen_before IS NOT NULL ORDER BY id DESC LIMIT 1),
      (SELECT published_at FROM etl.published_marts ORDER BY id DESC LIMIT 1)) AS since`.execute(db);
  const since = rows[0]?.since;
  return since == null ? undefined : new Date(since);
}

/**
 * The latest landed day (with rows) that build could read − settle_days: no incremental fact's
 * latest day is later (a fact's rows come from landed windows), so every fact's window starts at
 * or before it. Undefined when nothing had landed (the facts were empty: the next build re-builds
 * every day anyway).
 */
async function settleWindowStartAfter(
  db: Kysely<Database>,
  since: Date,
  settleDays: number,
): Promise<string | undefined> {
  const { rows } = await sql<{ day: string | null }>`
    SELECT (max(window_end) - 1 - ${settleDays}::int)::text AS day FROM etl.run_slices
    WHERE finished_at < ${since} AND status = 'succeeded' AND window_end IS NOT NULL
      AND rows_inserted + rows_updated + rows_unchanged > 0`.execute(db);
  return rows[0]?.day ?? undefined;
}

/**
 * Windows whose rows a load changed (inserted, updated, deleted) at or after `since`, starting
 * before `day`, per stream and account; and rows moved out of a day before `day` (the day a
 * moved row left is taken one earlier than its text says: a value with a zone east of UTC).
 */
async function changesBefore(db: Kysely<Database>, since: Date, day: string): Promise<OldLandingChange[]> {
  const { rows } = await sql<{
    source: string;
    account: string;
    first_day: string | null;
    end_day: string | null;
    rows: number;
    run_ids: (number | string | null)[];
  }>`
    SELECT stream AS source, account, min(window_start)::text AS first_day, max(window_end)::text AS end_day,
           sum(rows_inserted + rows_updated + rows_deleted)::int AS rows,
           array_agg(DISTINCT run_id ORDER BY run_id) AS run_ids
    FROM etl.run_slices
    WHERE run_id IN (SELECT id FROM etl.runs WHERE finished_at IS NULL OR finished_at >= ${since})
      AND finished_at >= ${since} AND window_start < ${day}::date
      AND rows_inserted + rows_updated + rows_deleted > 0
    GROUP BY stream, account
    UNION ALL
    SELECT landing_table, account, min(left_day)::text, (max(left_day) + 1)::text, count(*)::int,
           array_agg(DISTINCT run_id ORDER BY run_id)
    FROM (SELECT landing_table, account, run_id,
                 CASE WHEN moved_from ~ '^\\d{4}-\\d{2}-\\d{2}' THEN left(moved_from, 10)::date - 1 END AS left_day
          FROM etl.landing_moves WHERE moved_at >= ${since}) AS moves
    WHERE left_day IS NULL OR left_day < ${day}::date
    GROUP BY landing_table, account
    ORDER BY 1, 2`.execute(db);
  return rows.map((r) => ({
    source: r.source,
    account: r.account,
    firstDay: r.first_day ?? "unknown",
    endDay: r.end_day ?? "unknown",
    rows: r.rows,
    runIds: r.run_ids.filter((id) => id !== null).map(Number),
  }));
}

/**
 * The landing changes since the latest full build's publication that lie before the first day the
 * next incremental build re-builds (see the file's comment); undefined when there is nothing to
 * compare with (no publication yet, nothing landed before it).
 */
export async function findOldLandingChanges(
  db: Kysely<Database>,
  settleDays = DBT_SETTLE_DAYS,
): Promise<OldLandingChanges | undefined> {
  const since = await lastBuildSaw(db);
  if (since === undefined) return undefined;
  const settleWindowStart = await settleWindowStartAfter(db, since, settleDays);
  if (settleWindowStart === undefined) return undefined;
  return { settleWindowStart, changes: await changesBefore(db, since, settleWindowStart) };
}

/**
 * Why a build is a full refresh, in one line: "landing rows changed before the marts' settle
 * window (from 2026-08-03) since the last full build: cdrs/acme 2026-08-02..2026-08-03 (57 rows, run 4)".
 */
export function describeOldLandingChanges(found: OldLandingChanges): string {
  const each = found.changes.map((c) => {
    const runs = c.runIds.length === 1 ? `run ${c.runIds[0]}` : `runs ${c.runIds.join(", ")}`;
    return `${c.source}/${c.account} ${c.firstDay}..${c.endDay} (${c.rows} rows, ${runs})`;
  });
  return `landing rows changed before the marts' settle window (from ${found.settleWindowStart}) since the last full build: ${each.join("; ")}`;
}
