/**
 * A whole `run` or `backfill`: every selected stream of every selected account, with one rate
 * budget and one client per API key, the locks of every (account, stream) taken up front, the run
 * recorded in `etl.runs`, and slices scheduled oldest first per account within its concurrency.
 * One failing window, stream or account never stops the others.
 */
import pLimit from "p-limit";
import type { EtlConfig } from "../../config/config.js";
import { describeError, UsageError } from "../../core/errors.js";
import { KnownSecrets } from "../../core/known-secrets.js";
import { type Clock, realSleep, systemClock } from "../../core/ports.js";
import { utcDayOf } from "../../core/utc-days.js";
import { isRecounted } from "../../streams/recount-parts.js";
import { getStream, STREAM_NAMES } from "../../streams/registry.js";
import { refreshPlannerStatistics } from "../../warehouse/load/refresh-statistics.js";
import { recordFinishedStreams, recordPlannedStreams } from "../../warehouse/state/run-streams.js";
import { AccountClients } from "../clients/account-clients.js";
import { PlatformClockWatch } from "../extract/platform-clock.js";
import { checkAcceptedHolds, NOTHING_ACCEPTED } from "../holds/accepted-holds.js";
import { refuseSameAccountTwice } from "../plan/same-account-twice.js";
import { type RunTarget, selectRunTargets } from "../plan/select-targets.js";
import { planLookupSlices } from "./plan-slices.js";
import { prepareAccount, type RunScope } from "./prepare-account.js";
import { type RunEnd, withRecordedRun } from "./recorded-run.js";
import { recountOutcome, runOutcome } from "./run-outcome.js";
import { logProgress } from "./run-progress.js";
import type { PipelineDeps, PipelineResult, RunRequest } from "./run-request.js";
import {
  type PlannedSlice,
  runSlice,
  type SliceEnvironment,
  type StreamJob,
  type StreamSummary,
  summarize,
} from "./run-stream.js";

export type {
  BudgetSummary,
  PipelineDeps,
  PipelineRequest,
  PipelineResult,
  RecountRequest,
  RunRequest,
} from "./run-request.js";

/** Accounts whose clients, API revisions and plans are prepared at once before a run loads. */
const ACCOUNTS_PREPARED_AT_ONCE = 16;

/** Runs the request; throws UsageError (bad selection) or LockHeldError (exit 4) before loading anything. */
export async function runPipeline(deps: PipelineDeps, request: RunRequest): Promise<PipelineResult> {
  const clock = deps.clock ?? systemClock;
  const runStartedAt = new Date(deps.runStartedAt ?? clock.now());
  const today = utcDayOf(runStartedAt.getTime());
  const targets = targetsOf(deps.config, request);
  checkAcceptedHolds(
    request.accepted ?? NOTHING_ACCEPTED,
    deps.config.accounts.map((a) => a.name),
    STREAM_NAMES,
  );
  const secrets = deps.secrets ?? new KnownSecrets();
  for (const account of deps.config.accounts) secrets.add(account.apiKey.reveal());
  return withRecordedRun(
    {
      warehouse: deps.warehouse,
      log: deps.log,
      host: deps.host,
      pid: deps.pid,
      signal: deps.signal,
      sleep: deps.sleep,
      lockHeartbeatMs: deps.lockHeartbeatMs,
    },
    {
      command: request.command,
      arguments: {
        ...recordedArguments(request),
        today,
        ...(deps.unitOfRun === undefined ? {} : { unit_of_run: deps.unitOfRun }),
      },
      locks: targets.flatMap((t) => t.streams.map((s) => ({ account: t.account.name, stream: s.name }))),
      lockTimeoutMs: request.lockTimeoutMs ?? 0,
    },
    async ({ runId, locks }) => {
      const clients = new AccountClients(
        {
          config: deps.config,
          clock,
          sleep: deps.sleep ?? realSleep,
          log: deps.log,
          secrets,
          sharedBuckets: deps.sharedRateBuckets,
        },
        targets.map((t) => t.account).filter((a) => a.subAccountOf === undefined),
      );
      try {
        const scope: RunScope = { deps, request, today, runStartedAt, runId, locks, clients };
        const prepared = await prepareAccounts(scope, targets);
        await loadJobs(scope, targets, prepared.jobs, { clock, secrets });
        return await finishRun(scope, prepared);
      } finally {
        clients.close();
      }
    },
  );
}

/** The jobs of every account and the notes for the operator, recorded as the run's planned streams. */
interface PreparedRun {
  readonly jobs: StreamJob[];
  readonly notes: string[];
}

/**
 * Every account prepared ({@link prepareAccount}), ACCOUNTS_PREPARED_AT_ONCE at a time, not one
 * after another (40 accounts behind 200 ms of latency took 8.5 s before the first window); a
 * platform account reached twice is refused before anything is planned or loaded; the planned
 * streams are recorded.
 */
async function prepareAccounts(scope: RunScope, targets: readonly RunTarget[]): Promise<PreparedRun> {
  const preparing = pLimit(ACCOUNTS_PREPARED_AT_ONCE);
  const prepared = await Promise.all(targets.map((target) => preparing(() => prepareAccount(scope, target))));
  const jobs = prepared.flatMap((p) => p.jobs);
  refuseSameAccountTwice(
    prepared.map((p) => p.ready),
    scope.deps.config.accounts,
  );
  await recordPlannedStreams(
    scope.deps.warehouse.db,
    scope.runId,
    jobs.map((j) => ({
      account: j.account.name,
      stream: j.stream.name,
      windowsPlanned: j.plan.length,
      apiRevision: j.revision,
    })),
  );
  return { jobs, notes: [...requestNotes(scope.request, targets), ...prepared.flatMap((p) => p.notes)] };
}

/** Loads every job's slices, each account's within its windows in flight, with progress shown throughout. */
async function loadJobs(
  scope: RunScope,
  targets: readonly RunTarget[],
  jobs: readonly StreamJob[],
  shared: { readonly clock: Clock; readonly secrets: KnownSecrets },
): Promise<void> {
  const { deps, request, runId, today } = scope;
  const progress = deps.progress ?? logProgress(deps.log);
  const env: SliceEnvironment = {
    warehouse: deps.warehouse,
    runId,
    today,
    perPage: deps.config.perPage,
    clock: shared.clock,
    clockWatch: platformClockWatch(deps, shared.clock, scope.runStartedAt),
    locks: scope.locks,
    log: deps.log,
    signal: deps.signal,
    progress,
    accepted: request.accepted ?? NOTHING_ACCEPTED,
    secrets: shared.secrets,
    loadStatementTimeoutMs: deps.config.loadStatementTimeoutMs,
    retention: deps.config.retention,
  };
  deps.log.info(
    { runId, command: request.command, today, slices: jobs.reduce((n, j) => n + j.plan.length, 0) },
    "run started",
  );
  progress.begin(
    jobs.map((j) => ({ id: j.id, account: j.account.name, stream: j.stream.name, windows: j.plan.length })),
  );
  try {
    await Promise.all(
      targets.map((target) =>
        runAccountSlices(
          env,
          jobs.filter((j) => j.account.name === target.account.name),
          windowsInFlight(target.account.rate.concurrency),
          (job) => planLookupSlices(deps, job, scope.runStartedAt.getTime()),
        ),
      ),
    );
  } finally {
    progress.end();
  }
}

/** The watch of the platform's clock against the run's (a skew logged once, a read's time the earlier). */
function platformClockWatch(deps: PipelineDeps, clock: Clock, runStartedAt: Date): PlatformClockWatch {
  return new PlatformClockWatch({
    log: deps.log,
    clock,
    runStartedAt: runStartedAt.getTime(),
    ...(deps.config.missingClockMarginHours === undefined
      ? {}
      : { missingClockMarginMs: deps.config.missingClockMarginHours * 3_600_000 }),
  });
}

/**
 * The end of the run: every stream's summary recorded, the changed tables' planner statistics
 * refreshed (not after an interrupt: autovacuum analyzes what it loaded), the outcome decided and
 * each key's rate budget logged.
 */
async function finishRun(scope: RunScope, prepared: PreparedRun): Promise<RunEnd<PipelineResult>> {
  const { deps, request, runId, today } = scope;
  const summaries = prepared.jobs.map(summarize);
  await recordFinishedStreams(deps.warehouse.db, runId, summaries);
  if (!deps.signal.aborted && deps.refreshStatistics !== false)
    await refreshPlannerStatistics(deps.warehouse.db, changedTablesOf(summaries), deps.log, runId);
  const outcome = (request.command === "recount" ? recountOutcome : runOutcome)(
    summaries,
    deps.signal.aborted,
  );
  const budgets = scope.clients.budgets.map(({ budget, accounts }) => {
    const stats = budget.stats();
    return { accounts, currentRate: stats.currentRate, maxRate: stats.maxRate, throttled: stats.throttled };
  });
  for (const b of budgets) deps.log.info(b, "rate budget settled");
  const result: PipelineResult = {
    runId,
    runStartedAt: scope.runStartedAt,
    today,
    streams: summaries,
    budgets,
    exitCode: outcome.exitCode,
    status: outcome.status,
    notes: [...cutNotes(request, today), ...prepared.notes],
  };
  return { result, outcome };
}

/**
 * The (account, streams) of a request. A `recount` takes the streams the re-count checks only;
 * naming another with `--streams` is a usage error saying which are.
 */
function targetsOf(config: EtlConfig, request: RunRequest): RunTarget[] {
  if (request.command !== "recount")
    return selectRunTargets(config, request.accounts, request.streams, request.exactAccounts);
  const recounted: readonly string[] = STREAM_NAMES.filter((name) => isRecounted(getStream(name)));
  const other = request.streams?.find((name) => !recounted.includes(name));
  if (other !== undefined)
    throw new UsageError(
      `stream ${other} is not re-counted (only date-windowed lists with a total are): ${recounted.join(", ")}`,
    );
  return selectRunTargets(config, request.accounts, request.streams)
    .map((t) => ({ ...t, streams: t.streams.filter(isRecounted) }))
    .filter((t) => t.streams.length > 0);
}

/**
 * Windows of one account loaded at once. Each window already pages concurrently within the key's
 * budget, so a few windows keep every request slot busy (one extracts while another loads), and
 * fewer windows in memory keep the peak RSS flat.
 */
export function windowsInFlight(concurrency: number): number {
  return Math.max(1, Math.min(concurrency, 2));
}

/**
 * Every slice of one account's streams, `concurrency` at a time: first every windowed and
 * full-refresh stream, oldest window first across streams (the deferred re-opened windows after
 * the others); then the lookups, whose ids come from what those just loaded (a call loaded now is
 * asked about its transcription in the same run).
 */
async function runAccountSlices(
  env: SliceEnvironment,
  jobs: readonly StreamJob[],
  concurrency: number,
  planLookups: (job: StreamJob) => Promise<PlannedSlice[]>,
) {
  const limit = pLimit(Math.max(1, concurrency));
  const runJobs = async (list: readonly StreamJob[], deferred = false) => {
    const tasks = list.flatMap((job, order) =>
      job.plan.filter((p) => (p.deferred === true) === deferred).map((planned) => ({ job, planned, order })),
    );
    const startOf = (p: PlannedSlice) => (p.slice.kind === "window" ? p.slice.window.start : "");
    tasks.sort((a, b) => startOf(a.planned).localeCompare(startOf(b.planned)) || a.order - b.order);
    await Promise.all(tasks.map(({ job, planned }) => limit(() => runSlice(env, job, planned))));
  };
  const windowed = jobs.filter((job) => job.stream.lookup === undefined);
  await runJobs(windowed);
  // Re-opened windows the platform counts fewer rows in: a row that moved to another day has been
  // merged there by now, so their reads do not take it for vanished.
  await runJobs(windowed, true);
  const lookups = jobs.filter((job) => job.stream.lookup !== undefined);
  for (const job of lookups) {
    if (env.signal.aborted || job.accountAbort.signal.aborted || env.locks.lost.aborted) continue;
    try {
      job.plan.push(...(await planLookups(job)));
    } catch (error) {
      job.tally.windowsFailed++;
      job.tally.errors.push(`planning the lookups failed: ${describeError(error)}`);
      env.log.error(
        { account: job.account.name, stream: job.stream.name, error: describeError(error) },
        "planning the lookups failed",
      );
    }
    job.tally.windowsPlanned = job.plan.length;
    env.progress.replan(job.id, job.plan.length);
  }
  await runJobs(lookups);
}

/**
 * A last day after today is cut to today (nothing exists later): said in a note, not refused, so a
 * script asking for "through the end of the month" runs, and its operator sees what was loaded.
 */
export function cutNotes(request: RunRequest, today: string): string[] {
  if (request.command !== "run" && request.from > today)
    return [`note: --from ${request.from} is after today (${today}, UTC): nothing to load`];
  const [flag, last] = request.command !== "run" ? ["--to", request.to] : ["--until", request.until];
  if (last === undefined || last <= today) return [];
  return [`note: ${flag} ${last} is after today (${today}, UTC): cut to ${today}`];
}

/** A backfill's range does not apply to full-refresh streams: they load every page, and say so. */
function requestNotes(request: RunRequest, targets: readonly RunTarget[]): string[] {
  if (request.command !== "backfill") return [];
  const names = new Set(
    targets.flatMap((t) => t.streams.filter((s) => s.slicing === "full_refresh").map((s) => s.name)),
  );
  return [...names].map(
    (name) => `${name} is a full-refresh stream: loaded all pages; --from/--to do not apply`,
  );
}

/** The request as recorded in `etl.runs.arguments`: names and dates only, never a secret. */
export function recordedArguments(request: RunRequest): Record<string, unknown> {
  const base = {
    accounts: request.accounts ?? null,
    streams: request.streams ?? null,
    lockTimeoutMs: request.lockTimeoutMs ?? 0,
    ...(request.accepted === undefined ? {} : { accepted: request.accepted }),
  };
  if (request.command === "recount") return { ...base, from: request.from, to: request.to };
  return request.command === "backfill"
    ? { ...base, from: request.from, to: request.to, ...(request.refetch ? { refetch: true } : {}) }
    : { ...base, until: request.until ?? null };
}

/** The landing tables (a stream's own and its children's) of the streams that wrote or deleted rows. */
export function changedTablesOf(streams: readonly StreamSummary[]): string[] {
  return streams
    .filter((s) => s.inserted + s.updated + s.deleted > 0)
    .flatMap((s) => {
      const stream = getStream(s.stream);
      return [stream.table.name, ...(stream.children ?? []).map((c) => c.table.name)];
    });
}
