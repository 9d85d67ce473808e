import { DEFAULT_RETENTION } from "../config/config.js";
import { describeError } from "../core/errors.js";
import { STREAMS } from "../streams/registry.js";
import { retentionCutoff, retireMonthPartitions } from "../warehouse/admin/partition-retention.js";
import type { CommandContext } from "./command-context.js";

/**
 * Retention after a `run` / `nightly` load (config `retention.landing_months`): retires the month
 * partitions of the partitioned landing tables older than the kept months, logging each, and
 * records what it did in the run's `etl.runs.retired_partitions` (`[]`: nothing was old enough;
 * `{"error": …}`: it failed, logged as an error; the load's outcome stands either way).
 */
export async function retireOldMonths(ctx: CommandContext, runId: number, now: number): Promise<void> {
  const retention = ctx.config.retention ?? DEFAULT_RETENTION;
  if (retention.landingMonths === null) return;
  const targets = Object.values(STREAMS)
    .filter((stream) => stream.table.partitionedByMonth === true)
    .map((stream) => ({ stream: stream.name, table: stream.table }));
  const cutoff = retentionCutoff(new Date(now), retention.landingMonths);
  let record: unknown;
  try {
    record = await retireMonthPartitions(ctx.warehouse.pool, targets, cutoff, retention.action, ctx.log);
  } catch (error) {
    const message = describeError(error).split("\n")[0] ?? "";
    ctx.log.error({ runId, cutoff }, `retention failed (months before ${cutoff} stay): ${message}`);
    record = { error: message, cutoff };
  }
  await ctx.warehouse.pool.query("UPDATE etl.runs SET retired_partitions = $2::jsonb WHERE id = $1", [
    runId,
    JSON.stringify(record),
  ]);
}
