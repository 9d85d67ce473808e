/**
 * What `telecom-etl queue` shows: the work units in the warehouse's queue (pg-boss's job table in
 * schema `etl_queue`), read with plain SQL so that looking never installs or migrates anything.
 */
import { sql } from "kysely";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import { failureReason } from "./unit-outcome.js";
import { QUEUE_SCHEMA } from "./unit-queue.js";

/** Units of one queue by state. */
export interface QueueCounts {
  readonly queue: string;
  readonly states: Readonly<Record<string, number>>;
}

/** A unit being worked on or given up: its account, run, attempts and worker's last sign of life. */
export interface UnitLine {
  readonly queue: string;
  readonly account: string;
  readonly coordinatorRunId: number;
  readonly state: string;
  readonly attempts: number;
  readonly startedOn: string | null;
  readonly heartbeatOn: string | null;
  readonly reason: string | null;
}

/** The queue's picture: counts per queue, the units in hand, the units failed in the last day. */
export interface QueueView {
  readonly installed: boolean;
  readonly counts: readonly QueueCounts[];
  readonly active: readonly UnitLine[];
  readonly failed: readonly UnitLine[];
}

/** Reads the queue; `installed: false` when no distributed run has used this warehouse yet. */
export async function readQueueView(warehouse: Warehouse): Promise<QueueView> {
  const found = await sql<{ found: boolean }>`
    SELECT to_regclass(${`${QUEUE_SCHEMA}.job`}) IS NOT NULL AS found`.execute(warehouse.db);
  if (found.rows[0]?.found !== true) return { installed: false, counts: [], active: [], failed: [] };
  const counts = await sql<{ name: string; state: string; n: number }>`
    SELECT name, state::text AS state, count(*)::int AS n FROM etl_queue.job
    WHERE name LIKE 'load-units-%' GROUP BY name, state ORDER BY name, state`.execute(warehouse.db);
  const byQueue = new Map<string, Record<string, number>>();
  for (const row of counts.rows) byQueue.set(row.name, { ...byQueue.get(row.name), [row.state]: row.n });
  const units = await sql<{
    name: string;
    account: string;
    run: string;
    state: string;
    retry_count: number;
    started_on: Date | null;
    heartbeat_on: Date | null;
    output: unknown;
  }>`
    SELECT name, data->'request'->'accounts'->>0 AS account, data->>'coordinatorRunId' AS run,
      state::text AS state, retry_count, started_on, heartbeat_on, output
    FROM etl_queue.job
    WHERE name LIKE 'load-units-%'
      AND (state = 'active' OR (state = 'failed' AND completed_on > now() - interval '1 day'))
    ORDER BY started_on NULLS LAST`.execute(warehouse.db);
  const lines = units.rows.map(
    (row): UnitLine => ({
      queue: row.name,
      account: row.account,
      coordinatorRunId: Number(row.run),
      state: row.state,
      attempts: row.retry_count + 1,
      startedOn: row.started_on?.toISOString() ?? null,
      heartbeatOn: row.heartbeat_on?.toISOString() ?? null,
      reason: row.state === "failed" ? failureReason(row.output) : null,
    }),
  );
  return {
    installed: true,
    counts: [...byQueue].map(([queue, states]) => ({ queue, states })),
    active: lines.filter((l) => l.state === "active"),
    failed: lines.filter((l) => l.state === "failed"),
  };
}

/** The view as lines for a terminal. */
export function formatQueueView(view: QueueView): string[] {
  if (!view.installed) return ["no distributed run has used this warehouse yet (no queue)"];
  const lines = view.counts.map(
    (c) =>
      `${c.queue}: ${Object.entries(c.states)
        .map(([state, n]) => `${n} ${state}`)
        .join(", ")}`,
  );
  if (view.counts.length === 0) lines.push("the queue holds no work unit");
  for (const u of view.active)
    lines.push(
      `  working: ${u.account} (run ${u.coordinatorRunId}, attempt ${u.attempts}, started ${u.startedOn ?? "?"}, last heartbeat ${u.heartbeatOn ?? "none"})`,
    );
  for (const u of view.failed)
    lines.push(`  failed: ${u.account} (run ${u.coordinatorRunId}, ${u.attempts} attempts): ${u.reason}`);
  return lines;
}
