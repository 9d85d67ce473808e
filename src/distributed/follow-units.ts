/**
 * How the coordinator of a distributed run waits for its units: it reads their states every
 * second, reports each as it ends (a progress tick, a log line), cancels the units not started when
 * it is interrupted, rides out a warehouse outage (a restart: every read is tried again until the
 * warehouse answers, within a bound), and gives the run up when no worker of its queue has sent a
 * heartbeat for `distributed.no_worker_timeout` (unless told to wait for workers).
 */
import type { JobWithMetadata } from "pg-boss";
import { EtlError } from "../core/errors.js";
import { realSleep, systemClock } from "../core/ports.js";
import type { RunTarget } from "../pipeline/plan/select-targets.js";
import type { PipelineDeps } from "../pipeline/run/run-pipeline.js";
import type { ProgressReporter } from "../pipeline/run/run-progress.js";
import { acrossOutage, type OutageOptions } from "../warehouse/connection/warehouse-outage.js";
import { cancelWaitingUnits } from "./cancel-waiting.js";
import { failureReason, type UnitOutcome } from "./unit-outcome.js";
import type { UnitQueue } from "./unit-queue.js";
import type { WorkUnit } from "./work-unit.js";
import { secondsSinceWorkerHeartbeat } from "./worker-liveness.js";

/** How often the coordinator reads the units' states. */
const POLL_MS = 1_000;

/** A unit as the coordinator follows it. */
export interface FollowedUnit {
  readonly id: string;
  readonly target: RunTarget;
  state: JobWithMetadata["state"];
  attempts: number;
  outcome?: UnitOutcome;
  failure?: string;
}

/** How long the coordinator waits for signs of life. */
export interface FollowLimits {
  /** Warn once when no worker has taken a unit for this long. */
  readonly idleWarningMs: number;
  /** Give the run up when no worker has sent a heartbeat for this long; null: wait for workers however long. */
  readonly noWorkerTimeoutMs: number | null;
}

/** How the coordinator rides out a warehouse outage: its logger, clock and sleep. */
export function outageOptions(deps: PipelineDeps): OutageOptions {
  return {
    log: deps.log,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  };
}

/** True while no worker has the unit: not taken yet, or back in the queue for another attempt. */
function isWaiting(unit: FollowedUnit): boolean {
  return unit.state === "created" || unit.state === "retry";
}

/** True once a unit will change no more. */
export function isFinal(state: FollowedUnit["state"]): boolean {
  return state === "completed" || state === "failed" || state === "cancelled";
}

/**
 * Waits until every unit is completed or failed for good, reporting each as it ends; an
 * interruption cancels the units not started (those in hand finish on their workers). Throws an
 * EtlError (exit 1) when no worker is alive for `limits.noWorkerTimeoutMs`, its units cancelled.
 */
export async function followUnits(
  deps: PipelineDeps,
  queue: UnitQueue,
  runId: number,
  units: FollowedUnit[],
  limits: FollowLimits,
): Promise<void> {
  const clock = deps.clock ?? systemClock;
  const outage = outageOptions(deps);
  const progress: ProgressReporter | undefined = deps.progress;
  progress?.begin([
    { id: "units", account: `${units.length} account(s)`, stream: "work units", windows: units.length },
  ]);
  const started = clock.now();
  let lastActivity = started;
  let warned = false;
  try {
    while (units.some((u) => !isFinal(u.state))) {
      if (deps.signal.aborted) await cancelUnstarted(deps, queue, units, outage);
      if (await readStates(deps, queue, runId, units, outage)) lastActivity = clock.now();
      if (units.every((u) => isFinal(u.state))) break;
      const waiting = units.every(isWaiting);
      if (!warned && waiting && clock.now() - lastActivity > limits.idleWarningMs) {
        warned = true;
        deps.log.warn(
          { queue: queue.name, waitedSeconds: Math.round((clock.now() - lastActivity) / 1000) },
          `no worker has taken a unit from queue ${queue.name}: start \`telecom-etl worker\` of this release on a machine that reaches the warehouse`,
        );
      }
      if (limits.noWorkerTimeoutMs !== null && clock.now() - started >= limits.noWorkerTimeoutMs)
        await requireLiveWorker(deps, queue, units, limits.noWorkerTimeoutMs, outage);
      await (deps.sleep ?? realSleep)(POLL_MS).catch(() => {});
    }
  } finally {
    progress?.end();
  }
}

/** Reads the units' states once, reporting those that ended; true when any state changed. */
async function readStates(
  deps: PipelineDeps,
  queue: UnitQueue,
  runId: number,
  units: readonly FollowedUnit[],
  outage: OutageOptions,
): Promise<boolean> {
  const byId = new Map(units.map((u) => [u.id, u]));
  const jobs = await acrossOutage(
    "reading the work units' states",
    () => queue.boss.findJobs<WorkUnit>(queue.name, { data: { coordinatorRunId: runId }, limit: 100_000 }),
    outage,
  );
  let changed = false;
  for (const job of jobs) {
    const unit = byId.get(job.id);
    if (unit === undefined || isFinal(unit.state)) continue;
    if (job.state !== unit.state) changed = true;
    noteAttempt(deps, unit, job);
    unit.state = job.state;
    if (job.state === "completed") {
      unit.outcome = job.output as unknown as UnitOutcome;
      reportUnit(deps, unit);
    } else if (job.state === "failed") {
      unit.failure = failureReason(job.output);
      reportUnit(deps, unit);
    }
  }
  return changed;
}

/** Cancels the units `which` picks (their state becomes `cancelled`). */
async function cancelUnits(
  queue: UnitQueue,
  units: readonly FollowedUnit[],
  which: (unit: FollowedUnit) => boolean,
  outage: OutageOptions,
): Promise<number> {
  const open = units.filter(which);
  if (open.length === 0) return 0;
  await acrossOutage(
    "cancelling work units",
    () =>
      queue.boss.cancel(
        queue.name,
        open.map((u) => u.id),
      ),
    outage,
  );
  for (const unit of open) unit.state = "cancelled";
  return open.length;
}

/**
 * On an interruption: cancels the units no worker has taken. The states the loop read are up to a
 * poll old, and pg-boss cancels a unit in hand as readily as a waiting one, so every unit not
 * ended is offered and the queue itself decides which are still waiting, in the transaction that
 * cancels them (cancelWaitingUnits): a unit a worker took since the last read finishes on its
 * worker, as the docs promise, and the count of what was left is right. Called at every poll until
 * all have ended, so a unit that fails over to `retry` in the meantime is cancelled too.
 */
async function cancelUnstarted(
  deps: PipelineDeps,
  queue: UnitQueue,
  units: readonly FollowedUnit[],
  outage: OutageOptions,
): Promise<void> {
  const open = units.filter((u) => !isFinal(u.state));
  if (open.length === 0) return;
  const cancelled = new Set(
    await acrossOutage(
      "cancelling work units",
      () =>
        cancelWaitingUnits(
          deps.warehouse,
          queue,
          open.map((u) => u.id),
        ),
      outage,
    ),
  );
  for (const unit of open) if (cancelled.has(unit.id)) unit.state = "cancelled";
}

/**
 * Throws when no worker of the queue has sent a heartbeat within `timeoutMs` (none alive: killed,
 * never started, or of another release), after cancelling every unit not done: nobody would load
 * them, and a worker started later must not load for a run that ended.
 */
async function requireLiveWorker(
  deps: PipelineDeps,
  queue: UnitQueue,
  units: readonly FollowedUnit[],
  timeoutMs: number,
  outage: OutageOptions,
): Promise<void> {
  const age = await acrossOutage(
    "reading the workers' heartbeats",
    () => secondsSinceWorkerHeartbeat(deps.warehouse, queue.name),
    outage,
  );
  if (age !== null && age * 1000 <= timeoutMs) return;
  const cancelled = await cancelUnits(queue, units, (u) => !isFinal(u.state), outage);
  const seconds = Math.round(timeoutMs / 1000);
  throw new EtlError(
    `no worker of queue ${queue.name} has sent a heartbeat in ${seconds} s (distributed.no_worker_timeout)` +
      `${age === null ? "" : `, the last ${Math.round(age)} s ago`}; ${cancelled} unit(s) not done were cancelled: ` +
      "start `telecom-etl worker` of this release on a machine that reaches the warehouse, or pass --wait-for-workers to wait for one",
  );
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

/** One finished unit: a progress tick and a log line (its last attempt's figures: the summary sums every attempt's). */
function reportUnit(deps: PipelineDeps, unit: FollowedUnit): void {
  const streams = unit.outcome?.streams ?? [];
  const rows = streams.reduce((n, s) => n + s.inserted + s.updated, 0);
  const rejected = streams.reduce((n, s) => n + s.rejected, 0);
  const ok = unit.outcome !== undefined;
  // The unit's requests, told at its end: the bar's req/s is the run's average so far.
  const requests = streams.reduce((n, s) => n + s.requests, 0);
  for (let i = 0; i < requests; i++) deps.progress?.page("units");
  deps.progress?.windowDone("units", {
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
