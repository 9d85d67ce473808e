import type { Command } from "commander";
import { describeError, UsageError } from "../core/errors.js";
import { EXIT, type ExitCode, exitCodeFor } from "../core/exit-codes.js";
import { systemClock } from "../core/ports.js";
import { utcDayOf } from "../core/utc-days.js";
import { runDistributed } from "../distributed/run-distributed.js";
import { formatRunSummary, runSummaryJson } from "../pipeline/run/format-summary.js";
import { refuseRetiredBackfill } from "../pipeline/run/retired-backfill.js";
import { type PipelineRequest, type PipelineResult, runPipeline } from "../pipeline/run/run-pipeline.js";
import { barProgress, logProgress } from "../pipeline/run/run-progress.js";
import type { DbtStepRecord } from "../transform/dbt-step-record.js";
import { type CommandContext, type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { acceptedHoldsFrom, withHoldFlags } from "./hold-flags.js";
import {
  ALLOW_FUTURE_NOW_FLAG,
  ALLOW_PAST_NOW_FLAG,
  type NowOverrides,
  nowOverridesFrom,
  withNowFlags,
} from "./now-flags.js";
import { parseDateFlag, parseLockTimeout, parseNameList } from "./parse-flags.js";
import { reportRunEnd } from "./report-run-end.js";
import { commandLineOf, resumeLine } from "./resume-command.js";
import { retireOldMonths } from "./retire-partitions.js";

/** How far ahead of the system clock TELECOM_ETL_NOW may be without `--allow-future-now`. */
export const FUTURE_NOW_LIMIT_MS = 86_400_000;

export type { NowOverrides } from "./now-flags.js";

/** How a load runs: its clock overrides, and `--distributed` / `--no-distributed` (default: config `distributed.enabled`). */
export interface LoadOptions extends NowOverrides {
  readonly distributed?: boolean;
  /** Distributed: wait however long no worker is alive (`--wait-for-workers`), instead of `distributed.no_worker_timeout`. */
  readonly waitForWorkers?: boolean;
  /** After the load, retire month partitions past config `retention` (`run` and `nightly`, never a backfill). */
  readonly retireOldMonths?: boolean;
}

/**
 * The instant a run takes "today" from: the clock, or TELECOM_ETL_NOW (an ISO date-time) so runs
 * against a sandbox whose clock is not the wall clock plan the sandbox's days. A TELECOM_ETL_NOW
 * more than a day ahead of the system clock would settle windows that may still change, so it
 * needs `allowFuture` ({@link ALLOW_FUTURE_NOW_FLAG}); more than a day behind it (a variable left
 * over in a crontab) would load nothing new night after night, so it needs `allowPast`
 * ({@link ALLOW_PAST_NOW_FLAG}, or TELECOM_ETL_ALLOW_PAST_NOW=1).
 */
export function runStartInstant(
  env: NodeJS.ProcessEnv = process.env,
  options: { allowFuture?: boolean; allowPast?: boolean; now?: number } = {},
): number {
  const now = options.now ?? systemClock.now();
  const override = env.TELECOM_ETL_NOW;
  if (override === undefined || override === "") return now;
  const ms = Date.parse(override);
  if (Number.isNaN(ms)) throw new UsageError(`TELECOM_ETL_NOW: expected an ISO date-time, got "${override}"`);
  if (ms - now > FUTURE_NOW_LIMIT_MS && options.allowFuture !== true) {
    throw new UsageError(
      `TELECOM_ETL_NOW ${override} is more than a day ahead of this machine's clock (${new Date(now).toISOString()}); windows read "after" their end by such a clock would be settled too early: fix the variable, or pass ${ALLOW_FUTURE_NOW_FLAG} if this is intended`,
    );
  }
  const allowPast = options.allowPast === true || env.TELECOM_ETL_ALLOW_PAST_NOW === "1";
  if (now - ms > FUTURE_NOW_LIMIT_MS && !allowPast) {
    throw new UsageError(
      `TELECOM_ETL_NOW ${override} is more than a day behind this machine's clock (${new Date(now).toISOString()}); a run at such a clock loads nothing after that day: unset the variable, or pass ${ALLOW_PAST_NOW_FLAG} (TELECOM_ETL_ALLOW_PAST_NOW=1) if this is intended`,
    );
  }
  return ms;
}

/** How a load ended: its exit code and the run it recorded (which `nightly`'s transform names). */
export interface LoadOutcome {
  readonly exitCode: ExitCode;
  readonly runId: number;
}

/**
 * Runs a pipeline request in a command context and prints its summary; returns what the run did
 * (how it ended: a {@link LoadOutcome}). An interrupted run's summary ends with the command that
 * finishes it (`argv`: the command line it was started with).
 */
export async function executePipeline(
  ctx: CommandContext,
  request: PipelineRequest,
  options: LoadOptions = {},
  argv?: readonly string[],
): Promise<PipelineResult> {
  const runStartedAt = runStartInstant(process.env, {
    allowFuture: options.allowFutureNow,
    allowPast: options.allowPastNow,
  });
  refuseRetiredBackfill(ctx.config, request, utcDayOf(runStartedAt));
  const bars = process.stderr.isTTY === true && !ctx.json;
  const distributed = options.distributed ?? ctx.config.distributed?.enabled ?? false;
  const deps = {
    config: ctx.config,
    warehouse: ctx.warehouse,
    log: ctx.log,
    signal: ctx.signal,
    host: ctx.host,
    runStartedAt,
    secrets: ctx.secrets,
  };
  // Distributed: one bar of units on a terminal; elsewhere the coordinator logs each unit's end.
  const result = distributed
    ? await runDistributed(
        { ...deps, ...(bars ? { progress: barProgress(systemClock, undefined, undefined, "units") } : {}) },
        request,
        { waitForWorkers: options.waitForWorkers === true },
      )
    : await runPipeline(
        { ...deps, progress: bars ? barProgress(systemClock) : logProgress(ctx.log) },
        request,
      );
  // With bars on a terminal the summary below is on stdout already; logs keep it for cron and k8s.
  ctx.log[bars ? "debug" : "info"](
    {
      runId: result.runId,
      status: result.status,
      exitCode: result.exitCode,
      streams: result.streams.map((s) => ({
        account: s.account,
        stream: s.stream,
        status: s.status,
        windows: s.windowsLoaded,
        failed: s.windowsFailed,
        inserted: s.inserted,
        updated: s.updated,
        rejected: s.rejected,
      })),
    },
    "run summary",
  );
  const resume =
    result.exitCode === EXIT.interrupted && argv !== undefined
      ? await resumeLine(ctx, request, result, argv)
      : undefined;
  if (resume !== undefined) ctx.log.warn({ runId: result.runId }, resume);
  if (ctx.json) ctx.out(runSummaryJson(result, resume));
  // One write, after the bars and every log record of the run: nothing can land between its lines.
  else ctx.out([...formatRunSummary(result), ...(resume === undefined ? [] : [`  ${resume}`])].join("\n"));
  return result;
}

/**
 * Runs a `run` or `backfill` request as a command: context, pipeline, summary, exit code; `after`
 * gets how the load ended and returns the command's exit code (`nightly` transforms there,
 * recording its dbt steps in `dbtSteps`). Then, whatever the code (an error included), the end is
 * reported: recorded, alerted, measured (see report-run-end.ts).
 */
export async function runPipelineCommand(
  runtime: Runtime,
  cmd: Command,
  request: PipelineRequest,
  options: LoadOptions = {},
  after: (ctx: CommandContext, load: LoadOutcome, dbtSteps: DbtStepRecord[]) => Promise<ExitCode> = async (
    _ctx,
    load,
  ) => load.exitCode,
): Promise<void> {
  // Checked before the warehouse opens: a bad TELECOM_ETL_NOW is a usage error that does nothing.
  runStartInstant(process.env, { allowFuture: options.allowFutureNow, allowPast: options.allowPastNow });
  const code = await withCommandContext(
    globalOptions(cmd),
    runtime,
    { accounts: true, migrate: true, touchedAccounts: request.accounts },
    async (ctx) => {
      const end = {
        command: cmd.name(),
        host: ctx.host,
        startedAt: Date.now(),
        dbtSteps: [] as DbtStepRecord[],
      };
      let result: PipelineResult | undefined;
      try {
        result = await executePipeline(ctx, request, options, commandLineOf(cmd));
        if (options.retireOldMonths === true && result.exitCode !== EXIT.interrupted) {
          await retireOldMonths(
            ctx,
            result.runId,
            runStartInstant(process.env, {
              allowFuture: options.allowFutureNow,
              allowPast: options.allowPastNow,
            }),
          );
        }
        const exitCode = await after(ctx, result, end.dbtSteps);
        await reportRunEnd(ctx, { ...end, exitCode, endedAt: Date.now(), result });
        return exitCode;
      } catch (error) {
        const exitCode = exitCodeFor(error, ctx.signal.aborted);
        const line = describeError(error).split("\n")[0] ?? "";
        await reportRunEnd(ctx, { ...end, exitCode, endedAt: Date.now(), result, error: line });
        throw error;
      }
    },
  );
  runtime.setExitCode(code);
}

/** Adds the flags of the nightly load (`run` and `nightly`) to a command. */
export function withRunFlags(command: Command): Command {
  withHoldFlags(command)
    .option("--streams <names>", "only these streams (comma-separated)")
    .option("--accounts <names>", "only these accounts (comma-separated)")
    .option("--until <date>", "load nothing after this day (YYYY-MM-DD, inclusive)")
    .option("--lock-timeout <seconds>", "wait this long for another run holding a stream's lock (default 0)");
  return withDistributedFlags(withNowFlags(command));
}

/** Adds the flags of a distributed load (`--distributed`, `--no-distributed`, `--wait-for-workers`) to a loading command. */
export function withDistributedFlags(command: Command): Command {
  return command
    .option(
      "--distributed",
      "queue the work for `telecom-etl worker` processes and wait for them (default: config distributed.enabled)",
    )
    .option("--no-distributed", "load in this process even when the config enables distributed runs")
    .option(
      "--wait-for-workers",
      "distributed: wait however long no worker is alive, instead of giving up after distributed.no_worker_timeout",
    );
}

/** The clock overrides and the `--distributed` choice of a loading command's flags. */
export function loadOptionsFrom(options: Readonly<Record<string, unknown>>): LoadOptions {
  return {
    ...nowOverridesFrom(options),
    ...(typeof options.distributed === "boolean" ? { distributed: options.distributed } : {}),
    waitForWorkers: options.waitForWorkers === true,
  };
}

/** The `run` request the flags of {@link withRunFlags} ask for. */
export function runRequestFrom(
  options: Record<string, string | string[] | boolean | undefined>,
): PipelineRequest {
  return {
    command: "run",
    streams: parseNameList("--streams", options.streams as string | undefined),
    accounts: parseNameList("--accounts", options.accounts as string | undefined),
    until: parseDateFlag("--until", options.until as string | undefined),
    lockTimeoutMs: parseLockTimeout(options.lockTimeout as string | undefined),
    accepted: acceptedHoldsFrom(options),
  };
}

/** `telecom-etl run`: the nightly incremental load of every stream of every account. */
export function registerRunCommand(program: Command, runtime: Runtime): void {
  const command = withRunFlags(
    program
      .command("run")
      .description(
        "load every enabled stream of every account: open windows since the start date, the last lookback days again, and today (left open)",
      ),
  ).action(async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
    await runPipelineCommand(runtime, cmd, runRequestFrom(options), {
      ...loadOptionsFrom(options),
      retireOldMonths: true,
    });
  });
  withExample(
    command,
    "telecom-etl run",
    "telecom-etl run --streams cdrs --accounts acme --lock-timeout 60",
    "telecom-etl --json run --until 2026-08-31",
  );
}
