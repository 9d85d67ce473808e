/**
 * Cancelling the work units no worker has taken, and only those. pg-boss's `cancel` cancels a unit
 * in hand as readily as a waiting one, and whatever the caller last read of a unit's state may be
 * stale by the time the cancel runs: a worker can take the unit in between. So the units still
 * waiting are locked first, in the transaction that cancels them. A worker's fetch skips locked
 * rows (`FOR UPDATE SKIP LOCKED`), and a unit a worker took before the lock no longer matches:
 * no unit in hand is ever cancelled, however late the caller's view.
 */
import { CompiledQuery, sql } from "kysely";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import type { UnitQueue } from "./unit-queue.js";

/**
 * Cancels those of `ids` that are still waiting in the queue (`created`, or `retry` between two
 * attempts), atomically with respect to the workers' fetches; returns the ids it cancelled. A unit
 * a worker holds (or that ended) is left as it is.
 */
export async function cancelWaitingUnits(
  warehouse: Warehouse,
  queue: UnitQueue,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  return warehouse.db.transaction().execute(async (trx) => {
    const waiting = await sql<{ id: string }>`
      SELECT id::text AS id FROM etl_queue.job
      WHERE name = ${queue.name} AND id = ANY(${[...ids]}::uuid[]) AND state IN ('created', 'retry')
      ORDER BY id
      FOR UPDATE`.execute(trx);
    const locked = waiting.rows.map((row) => row.id);
    if (locked.length === 0) return [];
    // pg-boss's own cancel, run on this transaction's connection while the rows are locked.
    const db = {
      executeSql: (text: string, values?: unknown[]) =>
        trx.executeQuery(CompiledQuery.raw(text, values ?? [])),
    };
    await queue.boss.cancel(queue.name, locked, { db });
    return locked;
  });
}
