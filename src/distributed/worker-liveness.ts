/**
 * Whether any worker serves a queue, as pg-boss's instance registry (`etl_queue.instance`) says:
 * every pg-boss client records itself there, refreshes its row on a heartbeat timer of its own
 * (whether or not it holds a unit), lists the queues it works on (`workers`), and marks the row
 * stopped when it stops gracefully. A killed worker's row simply goes quiet. Read with plain SQL
 * on the warehouse's clock (`job_now()`, the clock pg-boss wrote the heartbeats with).
 */
import { sql } from "kysely";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";

/**
 * Seconds since the newest heartbeat of a running (not stopped) worker of `queue`; null when no
 * worker of it has ever registered, or none is left running.
 */
export async function secondsSinceWorkerHeartbeat(
  warehouse: Warehouse,
  queue: string,
): Promise<number | null> {
  const found = await sql<{ age: number | null }>`
    SELECT extract(epoch FROM etl_queue.job_now() - max(heartbeat_on))::float8 AS age
    FROM etl_queue.instance
    WHERE stopped_on IS NULL
      AND workers @> jsonb_build_array(jsonb_build_object('queue', ${queue}::text))`.execute(warehouse.db);
  const age = found.rows[0]?.age;
  return age === null || age === undefined ? null : Math.max(0, age);
}
