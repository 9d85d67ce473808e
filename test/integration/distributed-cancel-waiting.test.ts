/**
 * The coordinator cancels only the work units no worker has taken, whatever its view of them: a
 * unit it last saw waiting that a worker has since taken finishes on that worker (pg-boss's own
 * `cancel` would cancel it under the worker). Real pg-boss on a real Postgres; the worker's take is
 * pg-boss's own fetch.
 */
import { sql } from "kysely";
import { DEFAULT_DISTRIBUTED } from "../../src/config/config.js";
import { silentLogger } from "../../src/core/log.js";
import { cancelWaitingUnits } from "../../src/distributed/cancel-waiting.js";
import { openUnitQueue, type UnitQueue } from "../../src/distributed/unit-queue.js";
import { schemaVersion } from "../../src/warehouse/connection/migrate.js";
import { describe, expect, it } from "../helpers/fixtures.js";

async function openQueue(database: { warehouse: Parameters<typeof openUnitQueue>[0] }): Promise<UnitQueue> {
  return openUnitQueue(database.warehouse, DEFAULT_DISTRIBUTED, {
    log: silentLogger,
    schemaVersion: schemaVersion(),
    instanceName: "cancel-waiting-test",
  });
}

describe("cancelling the units not started", () => {
  it("cancels the waiting units and leaves a unit a worker took since, and an ended one, as they are", async ({
    database,
  }) => {
    const queue = await openQueue(database);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const id = await queue.boss.send(queue.name, { unit: i });
        ids.push(id!);
      }
      // A worker takes one unit (the coordinator still thinks it waits), another one ends.
      const [taken] = await queue.boss.fetch(queue.name, { batchSize: 1 });
      const ended = ids.find((id) => id !== taken!.id)!;
      await queue.boss.cancel(queue.name, ended);
      const waiting = ids.filter((id) => id !== taken!.id && id !== ended);

      const cancelled = await cancelWaitingUnits(database.warehouse, queue, ids);

      expect(cancelled).toEqual(waiting);
      const states = await sql<{ id: string; state: string }>`
        SELECT id::text AS id, state::text AS state FROM etl_queue.job
        WHERE name = ${queue.name} AND id = ANY(${ids}::uuid[])`.execute(database.warehouse.db);
      const stateOf = new Map(states.rows.map((row) => [row.id, row.state]));
      expect(stateOf.get(taken!.id)).toBe("active");
      expect(stateOf.get(ended)).toBe("cancelled");
      for (const id of waiting) expect(stateOf.get(id)).toBe("cancelled");
      // The worker can still finish the unit it holds.
      await queue.boss.complete(queue.name, taken!.id);
      const after = await queue.boss.getJobById(queue.name, taken!.id);
      expect(after?.state).toBe("completed");
    } finally {
      await queue.close({ graceful: false });
    }
  });

  it("never cancels a unit a worker takes while the cancel runs: each unit is either taken or cancelled", async ({
    database,
  }) => {
    const queue = await openQueue(database);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 40; i += 1) ids.push((await queue.boss.send(queue.name, { unit: i }))!);
      // Workers fetching one unit at a time while the coordinator cancels all 40 at once.
      const taken: string[] = [];
      const fetching = Promise.all(
        [0, 1, 2].map(async () => {
          for (let i = 0; i < 10; i += 1) {
            const jobs = await queue.boss.fetch(queue.name, { batchSize: 1 });
            for (const job of jobs) taken.push(job.id);
          }
        }),
      );
      const cancelled = await cancelWaitingUnits(database.warehouse, queue, ids);
      await fetching;
      expect(cancelled.filter((id) => taken.includes(id))).toEqual([]);
      const states = await sql<{ state: string; n: number }>`
        SELECT state::text AS state, count(*)::int AS n FROM etl_queue.job
        WHERE name = ${queue.name} AND id = ANY(${ids}::uuid[])
        GROUP BY state`.execute(database.warehouse.db);
      const count = Object.fromEntries(states.rows.map((row) => [row.state, row.n]));
      expect(count).toEqual({
        ...(taken.length > 0 ? { active: taken.length } : {}),
        ...(cancelled.length > 0 ? { cancelled: cancelled.length } : {}),
      });
      expect(taken.length + cancelled.length).toBe(ids.length);
    } finally {
      await queue.close({ graceful: false });
    }
  });
});
