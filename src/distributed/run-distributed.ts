/**
 * The coordinator of a distributed `run`/`backfill` (`--distributed`): records its run, plans one
 * work unit per selected account, queues them, and waits for the workers (`telecom-etl worker`)
 * to finish them, showing the same progress and summing the same summary as an in-process run.
 * It takes no stream lock itself: each unit is a run of its own, with its account's locks.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { DEFAULT_DISTRIBUTED } from "../config/config.js";
import { systemClock } from "../core/ports.js";
import { utcDayOf } from "../core/utc-days.js";
import { checkAcceptedHolds, NOTHING_ACCEPTED } from "../pipeline/holds/accepted-holds.js";
import { type RunTarget, selectRunTargets } from "../pipeline/plan/select-targets.js";
import { withRecordedRun } from "../pipeline/run/recorded-run.js";
import { runOutcome } from "../pipeline/run/run-outcome.js";
import {
  changedTablesOf,
  cutNotes,
  type PipelineDeps,
  type PipelineRequest,
  type PipelineResult,
  recordedArguments,
} from "../pipeline/run/run-pipeline.js";
import type { StreamSummary } from "../pipeline/run/run-stream.js";
import { STREAM_NAMES } from "../streams/registry.js";
import { acrossOutage } from "../warehouse/connection/warehouse-outage.js";
import { refreshPlannerStatistics } from "../warehouse/load/refresh-statistics.js";
import { readUnitRuns } from "../warehouse/state/run-history.js";
import { recordFinishedStreams, recordPlannedStreams } from "../warehouse/state/run-streams.js";
import { cancelWaitingUnits } from "./cancel-waiting.js";
import { type FollowedUnit, followUnits, outageOptions } from "./follow-units.js";
import { requireSameSchema } from "./schema-version.js";
import { openUnitQueue, type UnitQueue } from "./unit-queue.js";
import { unitNotes, unitSummaries } from "./unit-summaries.js";
import { planWorkUnits, type WorkUnit } from "./work-unit.js";

/** How the coordinator waits: `waitForWorkers` waits however long no worker is alive (`--wait-for-workers`). */
export interface CoordinatorOptions {
  readonly waitForWorkers?: boolean;
}

/** Runs `request` through the workers; the result is the sum of the units' (see the module comment). */
export async function runDistributed(
  deps: PipelineDeps,
  request: PipelineRequest,
  options: CoordinatorOptions = {},
): Promise<PipelineResult> {
  const clock = deps.clock ?? systemClock;
  const runStartedAt = new Date(deps.runStartedAt ?? clock.now());
  const today = utcDayOf(runStartedAt.getTime());
  const settings = deps.config.distributed ?? DEFAULT_DISTRIBUTED;
  const targets = selectRunTargets(deps.config, request.accounts, request.streams);
  checkAcceptedHolds(
    request.accepted ?? NOTHING_ACCEPTED,
    deps.config.accounts.map((a) => a.name),
    STREAM_NAMES,
  );
  const schemaVersion = await requireSameSchema(deps.warehouse);
  const outage = outageOptions(deps);
  return withRecordedRun(
    { warehouse: deps.warehouse, log: deps.log, host: deps.host, pid: deps.pid, signal: deps.signal },
    {
      command: request.command,
      arguments: { ...recordedArguments(request), today, distributed: true },
      locks: [],
      lockTimeoutMs: 0,
    },
    async ({ runId }) => {
      const queue = await openUnitQueue(deps.warehouse, settings, {
        log: deps.log,
        schemaVersion,
        instanceName: `telecom-etl ${request.command} run ${runId} ${deps.pid ?? process.pid}@${deps.host}`,
      });
      try {
        const followed = await queueUnits(deps, queue, request, targets, {
          coordinatorRunId: runId,
          runStartedAt,
          schemaVersion,
          config: deps.config,
        });
        await followUnits(deps, queue, runId, followed, {
          idleWarningMs: settings.idleWarningSeconds * 1000,
          noWorkerTimeoutMs: options.waitForWorkers === true ? null : settings.noWorkerTimeoutSeconds * 1000,
        });
        const streams = await acrossOutage(
          "recording the run's streams",
          () => recordStreams(deps, runId, followed),
          outage,
        );
        // Once for the whole run, as an in-process run does (the units leave it to the coordinator).
        if (!deps.signal.aborted)
          await acrossOutage(
            "refreshing the planner statistics",
            () => refreshPlannerStatistics(deps.warehouse.db, changedTablesOf(streams), deps.log, runId),
            outage,
          );
        const outcome = runOutcome(streams, deps.signal.aborted);
        const result: PipelineResult = {
          runId,
          runStartedAt,
          today,
          streams,
          budgets: followed.flatMap((u) => u.outcome?.budgets ?? []),
          exitCode: outcome.exitCode,
          status: outcome.status,
          notes: [...new Set([...cutNotes(request, today), ...followed.flatMap(unitNotes)])],
        };
        return { result, outcome };
      } finally {
        await queue.close();
      }
    },
  );
}

/**
 * Queues one unit per target (after cancelling the units orphaned by a killed coordinator);
 * returns them as followed. Rides out a warehouse outage: queueing twice queues nothing twice.
 */
async function queueUnits(
  deps: PipelineDeps,
  queue: UnitQueue,
  request: PipelineRequest,
  targets: readonly RunTarget[],
  context: Parameters<typeof planWorkUnits>[2],
): Promise<FollowedUnit[]> {
  const outage = outageOptions(deps);
  await acrossOutage("cancelling orphaned work units", () => cancelOrphanedUnits(deps, queue), outage);
  const units = planWorkUnits(request, targets, context);
  const followed = targets.map(
    (target): FollowedUnit => ({ id: randomUUID(), target, state: "created", attempts: 0 }),
  );
  const settings = deps.config.distributed ?? DEFAULT_DISTRIBUTED;
  await acrossOutage("queueing the work units", () => enqueue(queue, units, followed, settings), outage);
  deps.log.info(
    { runId: context.coordinatorRunId, units: followed.length, queue: queue.name },
    "work units queued",
  );
  return followed;
}

/**
 * The run's streams: every stream of every unit as its attempts ended it (see unit-summaries.ts),
 * recorded as the coordinator's, so `runs show`, `status` and the night's page read a distributed
 * run as they read an in-process one (its windows are in the units' runs). Safe to repeat.
 */
async function recordStreams(
  deps: PipelineDeps,
  runId: number,
  units: readonly FollowedUnit[],
): Promise<StreamSummary[]> {
  const runs = await readUnitRuns(deps.warehouse.db, runId);
  const streams = units.flatMap((unit) => unitSummaries(unit, runs));
  await recordPlannedStreams(
    deps.warehouse.db,
    runId,
    streams.map((s) => ({
      account: s.account,
      stream: s.stream,
      windowsPlanned: s.windowsPlanned,
      apiRevision: null,
    })),
  );
  await recordFinishedStreams(deps.warehouse.db, runId, streams);
  return streams;
}

/**
 * Cancels the units still waiting whose coordinator is no longer running (it was killed: the sweep
 * at this run's start recorded it `abandoned`), so workers do not load for a run nobody waits for.
 * Units in hand finish: their loads are as good as any run's.
 */
async function cancelOrphanedUnits(deps: PipelineDeps, queue: UnitQueue): Promise<void> {
  const orphans = await sql<{ id: string }>`
    SELECT j.id::text AS id FROM etl_queue.job j
    WHERE j.name = ${queue.name} AND j.state IN ('created', 'retry')
      AND NOT EXISTS (
        SELECT 1 FROM etl.runs r
        WHERE r.id = (j.data->>'coordinatorRunId')::bigint AND r.status = 'running')`.execute(
    deps.warehouse.db,
  );
  if (orphans.rows.length === 0) return;
  // A worker may take one of them between the read above and the cancel: it is then left to finish.
  const cancelled = await cancelWaitingUnits(
    deps.warehouse,
    queue,
    orphans.rows.map((r) => r.id),
  );
  if (cancelled.length === 0) return;
  deps.log.warn(
    { units: cancelled.length, queue: queue.name },
    "cancelled waiting work units of distributed runs that ended without them (their coordinator was stopped)",
  );
}

/**
 * Queues every unit (each with the run's retry limit and lease) under the ids of `followed`: a
 * repeat after a lost connection queues nothing twice (pg-boss skips an id it has).
 */
async function enqueue(
  queue: UnitQueue,
  units: readonly WorkUnit[],
  followed: readonly FollowedUnit[],
  settings: typeof DEFAULT_DISTRIBUTED,
): Promise<void> {
  await queue.boss.insert(
    queue.name,
    units.map((data, i) => ({
      id: followed[i]!.id,
      data,
      retryLimit: settings.retryLimit,
      heartbeatSeconds: settings.heartbeatSeconds,
    })),
  );
}
