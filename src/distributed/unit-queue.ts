/**
 * The job queue of distributed loads: pg-boss in the warehouse's own schema `etl_queue`, one
 * queue per warehouse schema version and unit shape (`load-units-0024-fe8b0b`), so a worker of
 * another release never takes a unit planned for this one. A unit's lease is pg-boss's heartbeat:
 * a worker that stops answering (SIGKILL, a cut network, a machine gone) loses its unit after
 * `heartbeat_seconds`, and another worker takes it; a unit that fails `retry_limit` + 1 times is
 * failed for good.
 */
import { createHash } from "node:crypto";
import type { PgBoss } from "pg-boss";
import { z } from "zod";
import type { DistributedConfig } from "../config/config.js";
import { describeError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import { workUnitSchema } from "./work-unit.js";

/** The schema pg-boss keeps its tables in (created by the first process that opens the queue). */
export const QUEUE_SCHEMA = "etl_queue";

/** Longest a unit may stay active at all (pg-boss's maximum, 24 h); the heartbeat detects dead workers far sooner. */
const UNIT_EXPIRE_SECONDS = 86_400;

/**
 * How often every queue client refreshes its row in pg-boss's instance registry: the sign of life
 * the coordinator reads (worker-liveness.ts), so `no_worker_timeout` (at least 15 s) spans 3 beats.
 */
const INSTANCE_HEARTBEAT_SECONDS = 5;

/**
 * A digest of what a unit carries (its zod schema as JSON Schema, the coordinator's settings
 * included): a build whose units have another shape, or carry other settings, uses another queue.
 */
const UNIT_SHAPE = createHash("sha256")
  .update(JSON.stringify(z.toJSONSchema(workUnitSchema, { unrepresentable: "any", io: "input" })))
  .digest("hex")
  .slice(0, 6);

/**
 * The queue of a schema version and unit shape: `load-units-`, the migration's number and the
 * digest of the unit's shape (`load-units-0024-fe8b0b`).
 */
export function unitQueueName(schemaVersion: string): string {
  return `load-units-${schemaVersion.split("_")[0]}-${UNIT_SHAPE}`;
}

/** An open queue client. */
export interface UnitQueue {
  readonly boss: PgBoss;
  /** The queue's name (of this build's schema version). */
  readonly name: string;
  close(options?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

/**
 * Opens pg-boss on the warehouse (its own small pool) and makes sure the queue exists. Every
 * client also supervises (fails units whose heartbeat stopped, expires, archives), at half the
 * heartbeat, so a lost lease is noticed within about one and a half heartbeats.
 */
export async function openUnitQueue(
  warehouse: Warehouse,
  settings: DistributedConfig,
  options: { log: Logger; schemaVersion: string; instanceName: string },
): Promise<UnitQueue> {
  const checkSeconds = Math.max(1, Math.floor(settings.heartbeatSeconds / 2));
  // Loaded here, not at the CLI's start: only distributed runs use it (14 MB of every process's RSS).
  const { PgBoss } = await import("pg-boss");
  const boss = new PgBoss({
    connectionString: warehouse.url,
    schema: QUEUE_SCHEMA,
    application_name: "telecom-etl queue",
    max: 4,
    supervise: true,
    superviseIntervalSeconds: checkSeconds,
    monitorIntervalSeconds: checkSeconds,
    instanceName: options.instanceName,
    instanceHeartbeatSeconds: INSTANCE_HEARTBEAT_SECONDS,
    openTelemetry: { enabled: false },
  });
  // pg-boss reports background failures as events; an unheard 'error' event would end the process.
  boss.on("error", (error: unknown) =>
    options.log.warn({ error: describeError(error) }, "job queue: background error"),
  );
  await boss.start();
  const name = unitQueueName(options.schemaVersion);
  if ((await boss.getQueue(name)) === null) {
    try {
      await boss.createQueue(name, {
        policy: "standard",
        retryLimit: settings.retryLimit,
        retryDelay: 5,
        retryBackoff: true,
        retryDelayMax: 300,
        expireInSeconds: UNIT_EXPIRE_SECONDS,
        heartbeatSeconds: settings.heartbeatSeconds,
      });
    } catch (error) {
      // Another process created it between the two statements.
      if ((await boss.getQueue(name)) === null) throw error;
    }
  }
  return {
    boss,
    name,
    close: ({ graceful = false, timeoutMs = 30_000 } = {}) =>
      boss.stop({ graceful, timeout: timeoutMs, close: true }),
  };
}
