/**
 * A whole `run` or `backfill`: every selected stream of every selected account, with one rate
 * budget and one client per API key, the locks of every (account, stream) taken up front, the run
 * recorded in `etl.runs`, and slices scheduled oldest first per account within its concurrency.
 * One failing window, stream or account never stops the others.
 */
import pLimit from "p-limit";
import { type ApiClient, createApiClient } from "../api/http-client.js";
import type { EtlConfig } from "../config.js";
import { describeError } from "../errors.js";
import { type ExitCode, exitCodeFor } from "../exit-codes.js";
import type { Logger } from "../log.js";
import { type Clock, realSleep, type Sleep, systemClock } from "../ports.js";
import type { StreamDefinition } from "../streams/stream-definition.js";
import { utcDayOf } from "../utc-days.js";
import { sweepAbandonedRuns } from "../warehouse/abandoned-runs.js";
import type { Warehouse } from "../warehouse/connect-warehouse.js";
import { finishRun, startRun } from "../warehouse/run-records.js";
import { acquireStreamLocks, type StreamLocks } from "../warehouse/stream-locks.js";
import { createKeyBudgets } from "./key-budgets.js";
import { planBackfillWindows, planWindows, resolveStartDate } from "./plan-windows.js";
import { readStreamProgress } from "./read-progress.js";
import { runOutcome } from "./run-outcome.js";
import { logProgress, type ProgressReporter } from "./run-progress.js";
import {
  newTally,
  type PlannedSlice,
  runSlice,
  type SliceEnvironment,
  type StreamJob,
  type StreamSummary,
  summarize,
} from "./run-stream.js";
import { type RunTarget, selectRunTargets } from "./select-targets.js";

/** What to run: a nightly `run` (up to today or `until`) or a `backfill` of [from, to]. */
export type PipelineRequest =
  | {
      readonly command: "run";
      readonly accounts?: readonly string[];
      readonly streams?: readonly string[];
      /** Last day to load, inclusive. */
      readonly until?: string;
      readonly lockTimeoutMs?: number;
    }
  | {
      readonly command: "backfill";
      readonly accounts?: readonly string[];
      readonly streams: readonly string[];
      /** First and last day, inclusive. */
      readonly from: string;
      readonly to: string;
      readonly lockTimeoutMs?: number;
    };

/** Side effects and process facts the pipeline works with. */
export interface PipelineDeps {
  readonly config: EtlConfig;
  readonly warehouse: Warehouse;
  readonly log: Logger;
  /** Aborted on SIGINT/SIGTERM: no new window starts; loads in flight finish. */
  readonly signal: AbortSignal;
  readonly host: string;
  readonly pid?: number;
  /** The instant "today" is taken from (default: the clock now); captured once. */
  readonly runStartedAt?: number;
  readonly clock?: Clock;
  readonly sleep?: Sleep;
  readonly progress?: ProgressReporter;
}

/** Rate a key's budget settled on. */
export interface BudgetSummary {
  readonly accounts: readonly string[];
  readonly currentRate: number;
  readonly maxRate: number;
  readonly throttled: number;
}

/** What a run did. */
export interface PipelineResult {
  readonly runId: number;
  readonly runStartedAt: Date;
  readonly today: string;
  readonly streams: readonly StreamSummary[];
  readonly budgets: readonly BudgetSummary[];
  readonly exitCode: ExitCode;
  readonly status: string;
  /** Things the operator should know about how the request was read (one line each). */
  readonly notes: readonly string[];
}

/** Runs the request; throws UsageError (bad selection) or LockHeldError (exit 4) before loading anything. */
export async function runPipeline(deps: PipelineDeps, request: PipelineRequest): Promise<PipelineResult> {
  const clock = deps.clock ?? systemClock;
  const runStartedAt = new Date(deps.runStartedAt ?? clock.now());
  const today = utcDayOf(runStartedAt.getTime());
  const targets = selectRunTargets(deps.config, request.accounts, request.streams);
  const runId = await startRun(deps.warehouse.db, {
    command: request.command,
    arguments: { ...recordedArguments(request), today },
    host: deps.host,
    pid: deps.pid ?? process.pid,
  });
  await sweepAbandonedRuns(deps.warehouse.db, { host: deps.host, pid: deps.pid, log: deps.log });
  let locks: StreamLocks | undefined;
  const clients: ApiClient[] = [];
  try {
    locks = await acquireStreamLocks(
      deps.warehouse,
      targets.flatMap((t) => t.streams.map((s) => ({ account: t.account.name, stream: s.name }))),
      // Waiting for a lock ends early on SIGINT.
      {
        timeoutMs: request.lockTimeoutMs ?? 0,
        runId,
        sleep: (ms) => (deps.sleep ?? realSleep)(ms, deps.signal),
      },
    );
    const budgets = createKeyBudgets(
      targets.map((t) => t.account),
      { clock, sleep: deps.sleep ?? realSleep, log: deps.log },
    );
    const jobs: StreamJob[] = [];
    for (const target of targets) {
      const { budget } = budgets.find((b) => b.accounts.includes(target.account.name))!;
      const client = createApiClient({
        baseUrl: target.account.baseUrl,
        apiKey: target.account.apiKey.reveal(),
        account: target.account.name,
        apiKeyEnvVar: target.account.apiKeyEnv,
        budget,
        timeouts: deps.config.timeouts,
        retry: deps.config.retry,
        sleep: deps.sleep,
        clock,
        log: deps.log,
      });
      clients.push(client);
      const accountAbort = new AbortController();
      for (const stream of target.streams) {
        const plan = await planSlices(deps, request, target.account.name, stream, today);
        jobs.push({
          id: `${target.account.name}/${stream.name}`,
          account: target.account,
          stream,
          plan,
          client,
          concurrency: budget.concurrency,
          streamAbort: new AbortController(),
          accountAbort,
          tally: newTally(target.account.name, stream.name, plan.length),
        });
      }
    }
    const progress = deps.progress ?? logProgress(deps.log);
    const env: SliceEnvironment = {
      warehouse: deps.warehouse,
      runId,
      perPage: deps.config.perPage,
      clock,
      log: deps.log,
      signal: deps.signal,
      progress,
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
            jobs.filter((j) => j.account === target.account),
            windowsInFlight(target.account.rate.concurrency),
          ),
        ),
      );
    } finally {
      progress.end();
    }
    const summaries = jobs.map(summarize);
    const outcome = runOutcome(summaries, deps.signal.aborted);
    await finishRun(deps.warehouse.db, runId, outcome);
    const budgetSummaries = budgets.map(({ budget, accounts }) => {
      const stats = budget.stats();
      return { accounts, currentRate: stats.currentRate, maxRate: stats.maxRate, throttled: stats.throttled };
    });
    for (const b of budgetSummaries) deps.log.info(b, "rate budget settled");
    return {
      runId,
      runStartedAt,
      today,
      streams: summaries,
      budgets: budgetSummaries,
      exitCode: outcome.exitCode,
      status: outcome.status,
      notes: requestNotes(request, targets),
    };
  } catch (error) {
    const interrupted = deps.signal.aborted;
    const exitCode = exitCodeFor(error, interrupted);
    const status = interrupted ? "interrupted" : "failed";
    await finishRun(deps.warehouse.db, runId, { status, exitCode }).catch((finishError: unknown) =>
      deps.log.warn({ error: describeError(finishError) }, "could not record the end of the run"),
    );
    throw error;
  } finally {
    for (const client of clients) client.close();
    await locks?.release();
  }
}

/**
 * Windows of one account loaded at once. Each window already pages concurrently within the key's
 * budget, so a few windows keep every request slot busy (one extracts while another loads), and
 * fewer windows in memory keep the peak RSS flat.
 */
export function windowsInFlight(concurrency: number): number {
  return Math.max(1, Math.min(concurrency, 2));
}

/** Every slice of one account's streams, oldest first across streams, `concurrency` at a time. */
async function runAccountSlices(env: SliceEnvironment, jobs: readonly StreamJob[], concurrency: number) {
  const limit = pLimit(Math.max(1, concurrency));
  const tasks = jobs.flatMap((job, order) => job.plan.map((planned) => ({ job, planned, order })));
  const startOf = (p: PlannedSlice) => (p.slice.kind === "window" ? p.slice.window.start : "");
  tasks.sort((a, b) => startOf(a.planned).localeCompare(startOf(b.planned)) || a.order - b.order);
  await Promise.all(tasks.map(({ job, planned }) => limit(() => runSlice(env, job, planned))));
}

async function planSlices(
  deps: PipelineDeps,
  request: PipelineRequest,
  account: string,
  stream: StreamDefinition,
  today: string,
): Promise<PlannedSlice[]> {
  if (stream.slicing === "full_refresh") return [{ slice: { kind: "full" }, complete: false }];
  const { windowDays, lookbackDays } = deps.config;
  const windows =
    request.command === "backfill"
      ? planBackfillWindows({ from: request.from, to: request.to, windowDays, today })
      : await (async () => {
          const progress = await readStreamProgress(deps.warehouse.db, account, stream.name);
          const startDate = resolveStartDate(deps.config.startDate, progress.firstRunWindow, today);
          return planWindows({
            startDate,
            windowDays,
            lookbackDays,
            today,
            until: request.until,
            completed: progress.completed,
          });
        })();
  return windows.map((w) => ({
    slice: { kind: "window", window: { start: w.start, end: w.end } },
    complete: w.complete,
  }));
}

/** A backfill's range does not apply to full-refresh streams: they load every page, and say so. */
function requestNotes(request: PipelineRequest, targets: readonly RunTarget[]): string[] {
  if (request.command !== "backfill") return [];
  const names = new Set(
    targets.flatMap((t) => t.streams.filter((s) => s.slicing === "full_refresh").map((s) => s.name)),
  );
  return [...names].map(
    (name) => `${name} is a full-refresh stream: loaded all pages; --from/--to do not apply`,
  );
}

/** The request as recorded in `etl.runs.arguments`: names and dates only, never a secret. */
function recordedArguments(request: PipelineRequest): Record<string, unknown> {
  const base = {
    accounts: request.accounts ?? null,
    streams: request.streams ?? null,
    lockTimeoutMs: request.lockTimeoutMs ?? 0,
  };
  return request.command === "backfill"
    ? { ...base, from: request.from, to: request.to }
    : { ...base, until: request.until ?? null };
}
