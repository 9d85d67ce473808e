/**
 * A whole `run` or `backfill`: every selected stream of every selected account, with one rate
 * budget and one client per API key, the locks of every (account, stream) taken up front, the run
 * recorded in `etl.runs`, and slices scheduled oldest first per account within its concurrency.
 * One failing window, stream or account never stops the others.
 */
import pLimit from "p-limit";
import type { ApiClient } from "../api/http-client.js";
import type { SharedRateBuckets } from "../api/shared-token-bucket.js";
import { DEFAULT_RECOUNT, type EtlConfig, settingsOf } from "../config.js";
import { AuthError, describeError, UsageError } from "../errors.js";
import type { ExitCode } from "../exit-codes.js";
import { KnownSecrets } from "../known-secrets.js";
import type { Logger } from "../log.js";
import type { ApiRevision } from "../platform/api-revision.js";
import { type Clock, realSleep, type Sleep, systemClock } from "../ports.js";
import { isRecounted } from "../streams/recount-parts.js";
import { getStream, STREAM_NAMES } from "../streams/registry.js";
import { utcDayOf } from "../utc-days.js";
import type { Warehouse } from "../warehouse/connect-warehouse.js";
import { refreshPlannerStatistics } from "../warehouse/refresh-statistics.js";
import { recordFinishedStreams, recordPlannedStreams } from "../warehouse/run-streams.js";
import type { StreamLocks } from "../warehouse/stream-locks.js";
import { type AcceptedHolds, checkAcceptedHolds, NOTHING_ACCEPTED } from "./accepted-holds.js";
import { type AccountClient, AccountClients } from "./account-clients.js";
import { resolveApiRevision } from "./api-revision.js";
import { planLookupSlices, planSlices } from "./plan-slices.js";
import { PlatformClockWatch } from "./platform-clock.js";
import { withRecordedRun } from "./recorded-run.js";
import { type RecountTally, recountAccount } from "./recount-windows.js";
import { recountOutcome, runOutcome } from "./run-outcome.js";
import { logProgress, type ProgressReporter } from "./run-progress.js";
import {
  addRecount,
  newTally,
  type PlannedSlice,
  runSlice,
  type SliceEnvironment,
  type StreamJob,
  type StreamSummary,
  summarize,
} from "./run-stream.js";
import { refuseSameAccountTwice } from "./same-account-twice.js";
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
      /** Holds the operator confirmed (`--accept-shrink`, `--accept-drift`). */
      readonly accepted?: AcceptedHolds;
      /** Only the accounts named (a master without its sub-accounts): a distributed work unit. */
      readonly exactAccounts?: boolean;
    }
  | {
      readonly command: "backfill";
      readonly accounts?: readonly string[];
      readonly streams: readonly string[];
      /** First and last day, inclusive. */
      readonly from: string;
      readonly to: string;
      /** Read the windows of the range that are settled already too (`--refetch`); default: skip them. */
      readonly refetch?: boolean;
      readonly lockTimeoutMs?: number;
      /** Holds the operator confirmed (`--accept-shrink`, `--accept-drift`). */
      readonly accepted?: AcceptedHolds;
      /** Only the accounts named (a master without its sub-accounts): a distributed work unit. */
      readonly exactAccounts?: boolean;
    };

/**
 * `telecom-etl recount`: every settled window of [from, to] (both inclusive) of the re-counted
 * streams counted against the platform's totals, those that differ opened again; nothing loaded.
 */
export interface RecountRequest {
  readonly command: "recount";
  readonly accounts?: readonly string[];
  readonly streams?: readonly string[];
  readonly from: string;
  readonly to: string;
  readonly lockTimeoutMs?: number;
  readonly accepted?: undefined;
  readonly exactAccounts?: undefined;
}

/** Everything {@link runPipeline} runs: a load, or a re-count. */
export type RunRequest = PipelineRequest | RecountRequest;

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
  /** Keep-alive interval of the run's lock session (default 5 s; tests shorten it). */
  readonly lockHeartbeatMs?: number;
  /**
   * The secrets the run knows, masked wherever a row is stored or logged (the CLI shares it with its
   * logger); default a set of the run's own. The accounts' keys are added at the start.
   */
  readonly secrets?: KnownSecrets;
  /** The distributed run this run is a work unit of (recorded in `etl.runs.arguments.unit_of_run`). */
  readonly unitOfRun?: number;
  /**
   * Refresh the planner statistics of the tables the run changed (default true). A distributed
   * unit says false: its coordinator refreshes them once, after every unit (40 units analyzing one
   * table at once would queue on its lock).
   */
  readonly refreshStatistics?: boolean;
  /** One token bucket per key in the warehouse, for distributed workers; default: in memory. */
  readonly sharedRateBuckets?: SharedRateBuckets;
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
  const clockWatch = new PlatformClockWatch({
    log: deps.log,
    clock,
    runStartedAt: runStartedAt.getTime(),
    ...(deps.config.missingClockMarginHours === undefined
      ? {}
      : { missingClockMarginMs: deps.config.missingClockMarginHours * 3_600_000 }),
  });
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
        // Accounts are prepared (key, API revision, plan) ACCOUNTS_PREPARED_AT_ONCE at a time, not one
        // after another: 40 accounts behind 200 ms of latency took 8.5 s before the first window.
        const prepareAccount = async (target: RunTarget) => {
          const accountJobs: StreamJob[] = [];
          const accountNotes: string[] = [];
          const ready = await clients.clientFor(target.account, deps.signal);
          const accountAbort = new AbortController();
          const revision =
            "client" in ready
              ? await accountRevision(deps, target, ready.client, today, accountAbort)
              : "2024";
          // A sub-account's ledger is read with its master's key, whether or not its own key could be had.
          const readers = new Map<string, AccountClient>();
          for (const stream of target.streams)
            readers.set(
              stream.name,
              stream.readWithMasterKey === true
                ? await clients.masterClientFor(target.account, deps.signal)
                : ready,
            );
          const recounts = await recountBeforePlanning(deps, request, {
            runId,
            locks,
            today,
            ready,
            readers,
            revision,
            accountAbort,
          });
          for (const stream of target.streams) {
            const reader = readers.get(stream.name)!;
            const settings = settingsOf(deps.config, stream.name);
            const plan = await planSlices(
              deps,
              request,
              target.account.name,
              stream,
              { today, readAt: runStartedAt.getTime(), settleHours: settings.settleHours },
              (skipped) => {
                if (skipped > 0)
                  accountNotes.push(
                    `${target.account.name}/${stream.name}: ${skipped} window(s) of the range already settled, not read again (--refetch reads them)`,
                  );
              },
            );
            const tally = newTally(target.account.name, stream.name, plan.length);
            addRecount(tally, recounts.get(stream.name));
            if ("failure" in reader && reader.failure instanceof AuthError) {
              // Its master's key was refused or its host cannot be reached: the account stops, as the master does.
              if (!accountAbort.signal.aborted) accountAbort.abort(reader.failure);
              tally.windowsNotRun = plan.length;
            } else if ("failure" in reader) {
              // Nothing of a sub-account whose key could not be had is read: each stream fails saying why.
              tally.windowsFailed = Math.max(1, plan.length);
              tally.errors.push(reader.failure.message);
            }
            accountJobs.push({
              id: `${target.account.name}/${stream.name}`,
              account: ready.account,
              stream,
              plan: "client" in reader ? plan : [],
              settings,
              revision,
              client: "client" in reader ? reader.client : unusable(reader.failure),
              concurrency: "client" in reader ? reader.budget.budget.concurrency : 1,
              streamAbort: new AbortController(),
              accountAbort,
              tally,
            });
          }
          if ("failure" in ready) deps.log.error({ account: target.account.name }, ready.failure.message);
          return { ready: ready.account, jobs: accountJobs, notes: accountNotes };
        };
        const preparing = pLimit(ACCOUNTS_PREPARED_AT_ONCE);
        const prepared = await Promise.all(targets.map((target) => preparing(() => prepareAccount(target))));
        const jobs = prepared.flatMap((p) => p.jobs);
        const readies = prepared.map((p) => p.ready);
        const notes = [...requestNotes(request, targets), ...prepared.flatMap((p) => p.notes)];
        // Before anything is planned or loaded: a platform account reached twice is a config error.
        refuseSameAccountTwice(readies, deps.config.accounts);
        await recordPlannedStreams(
          deps.warehouse.db,
          runId,
          jobs.map((j) => ({
            account: j.account.name,
            stream: j.stream.name,
            windowsPlanned: j.plan.length,
            apiRevision: j.revision,
          })),
        );
        const progress = deps.progress ?? logProgress(deps.log);
        const env: SliceEnvironment = {
          warehouse: deps.warehouse,
          runId,
          today,
          perPage: deps.config.perPage,
          clock,
          clockWatch,
          locks,
          log: deps.log,
          signal: deps.signal,
          progress,
          accepted: request.accepted ?? NOTHING_ACCEPTED,
          secrets,
          loadStatementTimeoutMs: deps.config.loadStatementTimeoutMs,
          retention: deps.config.retention,
        };
        deps.log.info(
          { runId, command: request.command, today, slices: jobs.reduce((n, j) => n + j.plan.length, 0) },
          "run started",
        );
        progress.begin(
          jobs.map((j) => ({
            id: j.id,
            account: j.account.name,
            stream: j.stream.name,
            windows: j.plan.length,
          })),
        );
        try {
          await Promise.all(
            targets.map((target) =>
              runAccountSlices(
                env,
                jobs.filter((j) => j.account.name === target.account.name),
                windowsInFlight(target.account.rate.concurrency),
                (job) => planLookupSlices(deps, job, runStartedAt.getTime()),
              ),
            ),
          );
        } finally {
          progress.end();
        }
        const summaries = jobs.map(summarize);
        await recordFinishedStreams(deps.warehouse.db, runId, summaries);
        // An interrupted run stops as soon as it can; autovacuum analyzes what it loaded.
        if (!deps.signal.aborted && deps.refreshStatistics !== false)
          await refreshPlannerStatistics(deps.warehouse.db, changedTablesOf(summaries), deps.log, runId);
        const outcome = (request.command === "recount" ? recountOutcome : runOutcome)(
          summaries,
          deps.signal.aborted,
        );
        const budgetSummaries = clients.budgets.map(({ budget, accounts }) => {
          const stats = budget.stats();
          return {
            accounts,
            currentRate: stats.currentRate,
            maxRate: stats.maxRate,
            throttled: stats.throttled,
          };
        });
        for (const b of budgetSummaries) deps.log.info(b, "rate budget settled");
        const result: PipelineResult = {
          runId,
          runStartedAt,
          today,
          streams: summaries,
          budgets: budgetSummaries,
          exitCode: outcome.exitCode,
          status: outcome.status,
          notes: [...cutNotes(request, today), ...notes],
        };
        return { result, outcome };
      } finally {
        clients.close();
      }
    },
  );
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
 * The re-count of an account's settled windows, before its windows are planned (so a window that
 * differs is planned again): a nightly `run`'s budgeted share, every settled window of a
 * `recount`'s range, none for a backfill or an account that cannot be read.
 */
async function recountBeforePlanning(
  deps: PipelineDeps,
  request: RunRequest,
  input: {
    readonly runId: number;
    readonly locks: StreamLocks;
    readonly today: string;
    readonly ready: AccountClient;
    readonly readers: ReadonlyMap<string, AccountClient>;
    readonly revision: ApiRevision;
    readonly accountAbort: AbortController;
  },
): Promise<Map<string, RecountTally>> {
  const { ready, today } = input;
  if (request.command === "backfill" || !("client" in ready) || input.accountAbort.signal.aborted)
    return new Map();
  const streams = [...input.readers].flatMap(([name, reader]) =>
    "client" in reader ? [{ stream: getStream(name), client: reader.client }] : [],
  );
  return recountAccount(
    {
      warehouse: deps.warehouse,
      runId: input.runId,
      log: deps.log,
      signal: deps.signal,
      locks: input.locks,
      account: ready.account,
      revision: input.revision,
      concurrency: ready.budget.budget.concurrency,
      accountAbort: input.accountAbort,
    },
    streams,
    request.command === "recount"
      ? { kind: "range", today, from: request.from, to: request.to }
      : {
          kind: "nightly",
          today,
          ...(request.until === undefined ? {} : { until: request.until }),
          settings: deps.config.recount ?? DEFAULT_RECOUNT,
          windowDays: deps.config.windowDays,
        },
  );
}

/** A client for a sub-account whose key could not be had: its jobs plan no slice, so it is never called. */
function unusable(failure: Error): ApiClient {
  return {
    account: "",
    getJson: () => Promise.reject(failure),
    close: () => {},
  };
}

/**
 * The API revision an account is read with this run: configured, or asked of the platform once
 * (only when one of its streams has revision-dependent paths). A key the platform refuses stops
 * the account here, like a 401 on its first window would.
 */
async function accountRevision(
  deps: PipelineDeps,
  target: RunTarget,
  client: ApiClient,
  today: string,
  accountAbort: AbortController,
): Promise<ApiRevision> {
  const setting = target.account.apiRevision ?? "auto";
  if (setting === "auto" && !target.streams.some((s) => s.revisionDependent === true)) return "2024";
  try {
    return await resolveApiRevision({ client, setting, today, log: deps.log, signal: deps.signal });
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    accountAbort.abort(error);
    deps.log.error({ account: target.account.name }, error.message);
    return "2024";
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
