/**
 * A backfill into months retention has retired: refused. The next `run` or `nightly` would retire
 * those days again (dropped: read for nothing; detached: a second copy beside the archived one),
 * so the request cannot do what it asks; one line says where the kept months start and how to
 * keep more.
 */
import type { EtlConfig } from "../../config/config.js";
import { UsageError } from "../../core/errors.js";
import { retentionHorizon } from "../../warehouse/admin/partition-retention.js";
import { selectRunTargets } from "../plan/select-targets.js";
import type { PipelineRequest } from "./run-pipeline.js";

/**
 * Throws UsageError (exit 2) when `request` is a backfill whose `--from` lies before the retention
 * horizon of a stream it loads (a table partitioned by month, `retention.landing_months` set), on
 * UTC day `today`; nothing otherwise.
 */
export function refuseRetiredBackfill(config: EtlConfig, request: PipelineRequest, today: string): void {
  if (request.command !== "backfill") return;
  const targets = selectRunTargets(config, request.accounts, request.streams);
  const refused = new Map<string, string>();
  for (const stream of targets.flatMap((t) => t.streams)) {
    const horizon = retentionHorizon(config.retention, stream.table, today);
    if (horizon !== undefined && request.from < horizon) refused.set(stream.name, horizon);
  }
  if (refused.size === 0) return;
  const horizon = [...refused.values()][0]!;
  const streams = [...refused.keys()].sort();
  throw new UsageError(
    `--from ${request.from}: stream${streams.length === 1 ? "" : "s"} ${streams.join(", ")} keep${streams.length === 1 ? "s" : ""} nothing before ${horizon} (retention.landing_months: ${config.retention?.landingMonths}), and the next run would retire those days again; backfill --from ${horizon}, or raise retention.landing_months (null keeps every month) to keep them`,
  );
}
