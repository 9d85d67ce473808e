/**
 * The coordinator of a distributed `run`/`backfill` (`--distributed`): records its run, plans one
 * work unit per selected account, queues them, and waits for the workers (`telecom-etl worker`)
 * to finish them, showing the same progress and summing the same summary as an in-process run.
 * It takes no stream lock itself: each unit is a run of its own, with its account's locks.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { JobWithMetadata } from "pg-boss";
import { DEFAULT_DISTRIBUTED } from "../config.js";
import { checkAcceptedHolds, NOTHING_ACCEPTED } from "../pipeline/accepted-holds.js";
import { withRecordedRun } from "../pipeline/recorded-run.js";
import { runOutcome } from "../pipeline/run-outcome.js";
import {
  changedTablesOf,
  cutNotes,
  type PipelineDeps,
  type PipelineRequest,
  type PipelineResult,
  recordedArguments,
} from "../pipeline/run-pipeline.js";
import type { ProgressReporter } from "../pipeline/run-progress.js";
import { newTally, type StreamSummary } from "../pipeline/run-stream.js";
import { type RunTarget, selectRunTargets } from "../pipeline/select-targets.js";
import { realSleep, systemClock } from "../ports.js";
import { STREAM_NAMES } from "../streams/registry.js";
import { utcDayOf } from "../utc-days.js";
import { refreshPlannerStatistics } from "../warehouse/refresh-statistics.js";
import { recordFinishedStreams, recordPlannedStreams } from "../warehouse/run-streams.js";
import { requireSameSchema } from "./schema-version.js";
import { failureReason, type UnitOutcome } from "./unit-outcome.js";
import { openUnitQueue, type UnitQueue } from "./unit-queue.js";
import { planWorkUnits, type WorkUnit } from "./work-unit.js";

/** How often the coordinator reads the units' states. */
const POLL_MS = 1_000;

/** A unit as the coordinator follows it. */
interface FollowedUnit {
  readonly id: string;
  readonly target: RunTarget;
  state: JobWithMetadata["state"];
  attempts: number;
  outcome?: UnitOutcome;
  failure?: string;
}

/** Runs `request` through the workers; the result is the sum of the units' (see the module comment). */
export async function runDistributed(deps: PipelineDeps, request: PipelineRequest): Promise<PipelineResult> {
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
        await cancelOrphanedUnits(deps, queue);
        const units = planWorkUnits(request, targets, {
          coordinatorRunId: runId,
          runStartedAt,
          schemaVersion,
        });
        const followed = await enqueue(queue, units, targets, settings);
        deps.log.info({ runId, units: followed.length, queue: queue.name }, "work units queued");
        await followUnits(deps, queue, runId, followed, settings.idleWarningSeconds * 1000);
        const streams = followed.flatMap(summariesOf);
        // The run's streams as its units ended them, so `runs show`, `status` and the night's page
        // read a distributed run as they read an in-process one (its windows are in the units' runs).
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
        // Once for the whole run, as an in-process run does (the units leave it to the coordinator).
        if (!deps.signal.aborted)
          await refreshPlannerStatistics(deps.warehouse.db, changedTablesOf(streams), deps.log, runId);
        const outcome = runOutcome(streams, deps.signal.aborted);
        const result: PipelineResult = {
          runId,
          runStartedAt,
          today,
          streams,
          budgets: followed.flatMap((u) => u.outcome?.budgets ?? []),
          exitCode: outcome.exitCode,
          status: outcome.status,
          notes: [...new Set([...cutNotes(request, today), ...followed.flatMap(notesOf)])],
        };
        return { result, outcome };
      } finally {
        await queue.close();
      }
    },
  );
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
  await queue.boss.cancel(
    queue.name,
    orphans.rows.map((r) => r.id),
  );
  deps.log.warn(
    { units: orphans.rows.length, queue: queue.name },
    "cancelled waiting work units of distributed runs that ended without them (their coordinator was stopped)",
  );
}

/** Queues every unit (each with the run's retry limit and lease); returns them as followed. */
async function enqueue(
  queue: UnitQueue,
  units: readonly WorkUnit[],
  targets: readonly RunTarget[],
  settings: typeof DEFAULT_DISTRIBUTED,
): Promise<FollowedUnit[]> {
  const followed = units.map((_, i) => ({
    id: randomUUID(),
    target: targets[i]!,
    state: "created" as const,
    attempts: 0,
  }));
  await queue.boss.insert(
    queue.name,
    units.map((data, i) => ({
      id: followed[i]!.id,
      data,
      retryLimit: settings.retryLimit,
      heartbeatSeconds: settings.heartbeatSeconds,
    })),
  );
  return followed;
}

/**
 * Waits until every unit is completed or failed for good, reporting each as it ends; an
 * interruption cancels the units not started (those in hand finish on their workers).
 */
async function followUnits(
  deps: PipelineDeps,
  queue: UnitQueue,
  runId: number,
  units: FollowedUnit[],
  idleWarningMs: number,
): Promise<void> {
  const clock = deps.clock ?? systemClock;
  const sleep = deps.sleep ?? realSleep;
  const progress: ProgressReporter | undefined = deps.progress;
  progress?.begin([
    { id: "units", account: `${units.length} account(s)`, stream: "work units", windows: units.length },
  ]);
  const byId = new Map(units.map((u) => [u.id, u]));
  let lastActivity = clock.now();
  let warned = false;
  try {
    while (units.some((u) => !isFinal(u.state))) {
      if (deps.signal.aborted) {
        const open = units.filter((u) => u.state === "created" || u.state === "retry").map((u) => u.id);
        if (open.length > 0) await queue.boss.cancel(queue.name, open);
        for (const u of units) if (u.state === "created" || u.state === "retry") u.state = "cancelled";
        if (units.every((u) => isFinal(u.state) || u.state !== "active")) break;
      }
      const jobs = await queue.boss.findJobs<WorkUnit>(queue.name, {
        data: { coordinatorRunId: runId },
        limit: 100_000,
      });
      for (const job of jobs) {
        const unit = byId.get(job.id);
        if (unit === undefined || isFinal(unit.state)) continue;
        if (job.state !== unit.state) lastActivity = clock.now();
        noteAttempt(deps, unit, job);
        unit.state = job.state;
        if (job.state === "completed") {
          unit.outcome = job.output as unknown as UnitOutcome;
          reportUnit(deps, progress, unit);
        } else if (job.state === "failed") {
          unit.failure = failureReason(job.output);
          reportUnit(deps, progress, unit);
        }
      }
      const waiting = units.every((u) => u.state === "created" || u.state === "retry");
      if (!warned && waiting && clock.now() - lastActivity > idleWarningMs) {
        warned = true;
        deps.log.warn(
          { queue: queue.name, waitedSeconds: Math.round((clock.now() - lastActivity) / 1000) },
          `no worker has taken a unit from queue ${queue.name}: start \`telecom-etl worker\` of this release on a machine that reaches the warehouse`,
        );
      }
      if (units.some((u) => !isFinal(u.state))) await sleep(POLL_MS).catch(() => {});
    }
  } finally {
    progress?.end();
  }
}

function isFinal(state: FollowedUnit["state"]): boolean {
  return state === "completed" || state === "failed" || state === "cancelled";
}

/** Counts a unit's attempts; logs an attempt that failed and will be made again (its worker failed or vanished). */
function noteAttempt(deps: PipelineDeps, unit: FollowedUnit, job: JobWithMetadata<WorkUnit>): void {
  unit.attempts = Math.max(unit.attempts, job.state === "created" ? 0 : job.retryCount + 1);
  if (job.state !== "retry" || unit.state === "retry") return;
  deps.log.warn(
    { account: unit.target.account.name, attempt: unit.attempts, reason: failureReason(job.output) },
    "work unit attempt failed (or its worker stopped answering); another attempt follows",
  );
}

/** One finished unit: a progress tick and a log line. */
function reportUnit(deps: PipelineDeps, progress: ProgressReporter | undefined, unit: FollowedUnit): void {
  const streams = unit.outcome?.streams ?? [];
  const rows = streams.reduce((n, s) => n + s.inserted + s.updated, 0);
  const rejected = streams.reduce((n, s) => n + s.rejected, 0);
  const ok = unit.outcome !== undefined;
  // The unit's requests, told at its end: the bar's req/s is the run's average so far.
  const requests = streams.reduce((n, s) => n + s.requests, 0);
  for (let i = 0; i < requests; i++) progress?.page("units");
  progress?.windowDone("units", {
    window: unit.target.account.name,
    status: ok ? "succeeded" : "failed",
    rows,
    rejected,
    requests,
    completed: ok,
    ...(unit.failure === undefined ? {} : { error: unit.failure }),
  });
  const fields = {
    account: unit.target.account.name,
    worker: unit.outcome?.worker,
    runId: unit.outcome?.runId,
    exitCode: unit.outcome?.exitCode,
    rows,
    rejected,
    ...(unit.failure === undefined ? {} : { error: unit.failure }),
  };
  if (ok) deps.log.info(fields, "work unit finished");
  else deps.log.error(fields, "work unit failed for good");
}

/** The stream summaries of a unit: its workers', or one failed (or interrupted) summary per stream. */
function summariesOf(unit: FollowedUnit): StreamSummary[] {
  if (unit.outcome !== undefined) return [...unit.outcome.streams];
  const status = unit.state === "cancelled" ? "interrupted" : "failed";
  const reason = unit.failure ?? "cancelled before a worker took it";
  return unit.target.streams.map((stream) => ({
    ...newTally(unit.target.account.name, stream.name, 0),
    status,
    windowsFailed: status === "failed" ? 1 : 0,
    errors: [`work unit ${unit.state}: ${reason}`],
  }));
}

/** A unit's notes, and a note when it needed more than one attempt. */
function notesOf(unit: FollowedUnit): string[] {
  const notes = [...(unit.outcome?.notes ?? [])];
  if (unit.attempts > 1)
    notes.push(`${unit.target.account.name}: work unit done in ${unit.attempts} attempts`);
  return notes;
}
