/**
 * The worker's side of a distributed load: take units from the queue, `localConcurrency` at a
 * time, and load each as an in-process run of one account would (its locks, fence and states are
 * the truth of what is loaded). A unit that throws, or that this worker stops before it ends
 * (SIGTERM), fails its attempt: pg-boss gives it to another worker, up to the retry limit.
 */
import type { Job } from "pg-boss";
import type { DistributedConfig } from "../config/config.js";
import { describeError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import type { KnownSecrets } from "../core/known-secrets.js";
import type { Logger } from "../core/log.js";
import { type PipelineDeps, runPipeline } from "../pipeline/run/run-pipeline.js";
import { logProgress } from "../pipeline/run/run-progress.js";
import { settingsDiffering, unitConfig } from "./unit-config.js";
import { type UnitOutcome, unitOutcomeOf } from "./unit-outcome.js";
import type { UnitQueue } from "./unit-queue.js";
import { unitRequest, workUnitSchema } from "./work-unit.js";

/**
 * What a worker loads with: its own config (its accounts' base URLs, its process settings; each
 * unit brings the rest), warehouse, logger, secrets, environment (the keys), and the shared rate buckets.
 */
export type UnitDeps = Pick<PipelineDeps, "config" | "warehouse" | "host" | "pid"> &
  Partial<Pick<PipelineDeps, "lockHeartbeatMs">> & {
    /** Where the accounts' keys are read (default `process.env`). */
    readonly env?: NodeJS.ProcessEnv;
    readonly log: Logger;
    readonly secrets: KnownSecrets;
    /** Aborted when the worker is asked to stop: units in hand stop at their next safe point. */
    readonly signal: AbortSignal;
    readonly settings: DistributedConfig;
    /** Extra pipeline deps (the shared rate buckets of the keys). */
    readonly pipeline?: Partial<PipelineDeps>;
  };

/** A unit's attempt failed: the one line pg-boss stores (masked, without a stack). */
function attemptFailure(message: string, secrets: KnownSecrets): Error {
  const error = new Error(secrets.maskText(message));
  error.stack = error.message;
  return error;
}

/** Loads one unit; resolves to its outcome, or throws so that another attempt is made. */
export async function loadUnit(
  deps: UnitDeps,
  job: Pick<Job<unknown>, "id" | "data" | "signal">,
): Promise<UnitOutcome> {
  const parsed = workUnitSchema.safeParse(job.data);
  if (!parsed.success) {
    throw attemptFailure(`unit ${job.id} is not a work unit this release understands`, deps.secrets);
  }
  const unit = parsed.data;
  const account = unit.request.accounts[0];
  const log = deps.log.child({ unit: job.id, account, coordinatorRunId: unit.coordinatorRunId });
  const worker = `${deps.pid ?? process.pid}@${deps.host}`;
  log.info({ command: unit.request.command }, "unit started");
  try {
    const config = unitConfig(deps.config, unit.config, deps.env);
    const differing = settingsDiffering(deps.config, unit.config);
    if (differing.length > 0) {
      log.warn(
        { differing },
        `this worker's config differs from its coordinator's in ${differing.join(", ")}: the unit is loaded by the coordinator's; deploy it to this worker`,
      );
    }
    const result = await runPipeline(
      {
        ...deps.pipeline,
        config,
        warehouse: deps.warehouse,
        log,
        signal: AbortSignal.any([deps.signal, job.signal]),
        host: deps.host,
        ...(deps.pid === undefined ? {} : { pid: deps.pid }),
        ...(deps.lockHeartbeatMs === undefined ? {} : { lockHeartbeatMs: deps.lockHeartbeatMs }),
        runStartedAt: Date.parse(unit.runStartedAt),
        progress: logProgress(log),
        secrets: deps.secrets,
        unitOfRun: unit.coordinatorRunId,
        refreshStatistics: false,
      },
      unitRequest(unit, deps.settings.unitLockTimeoutSeconds * 1000),
    );
    if (result.exitCode === EXIT.interrupted) {
      throw attemptFailure(
        `worker ${worker} stopped before unit ${account} ended (its run ${result.runId} interrupted); another worker takes it`,
        deps.secrets,
      );
    }
    log.info({ runId: result.runId, exitCode: result.exitCode, status: result.status }, "unit finished");
    return unitOutcomeOf(result, worker);
  } catch (error) {
    const message = `unit ${account} on worker ${worker}: ${describeError(error).split("\n")[0]}`;
    log.warn({ error: deps.secrets.maskText(message) }, "unit attempt failed");
    throw attemptFailure(message, deps.secrets);
  }
}

/**
 * Warehouse connections a worker taking `units` at once needs: per unit its run's lock session and
 * up to two windows loading at once (see `windowsInFlight`), and two for run records and sweeps.
 * A smaller pool makes units wait for connections until they time out.
 */
export function connectionsForUnits(units: number): number {
  return 3 * units + 2;
}

/** Starts taking units from `queue` (`worker_units` at a time); resolves to pg-boss's worker id. */
export function workUnits(deps: UnitDeps, queue: UnitQueue): Promise<string> {
  return queue.boss.work<unknown, UnitOutcome>(
    queue.name,
    { localConcurrency: deps.settings.workerUnits, batchSize: 1, pollingIntervalSeconds: 1 },
    async ([job]) => loadUnit(deps, job!),
  );
}
