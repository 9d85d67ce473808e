import type { Command } from "commander";
import { UsageError } from "../errors.js";
import type { ExitCode } from "../exit-codes.js";
import { formatRunSummary, runSummaryJson } from "../pipeline/format-summary.js";
import { type PipelineRequest, runPipeline } from "../pipeline/run-pipeline.js";
import { barProgress, logProgress } from "../pipeline/run-progress.js";
import { systemClock } from "../ports.js";
import { type CommandContext, type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { parseDateFlag, parseLockTimeout, parseNameList } from "./parse-flags.js";

/**
 * The instant a run takes "today" from: the clock, or TELECOM_ETL_NOW (an ISO date-time) so runs
 * against a sandbox whose clock is not the wall clock plan the sandbox's days.
 */
export function runStartInstant(env: NodeJS.ProcessEnv = process.env): number {
  const override = env.TELECOM_ETL_NOW;
  if (override === undefined || override === "") return systemClock.now();
  const ms = Date.parse(override);
  if (Number.isNaN(ms)) throw new UsageError(`TELECOM_ETL_NOW: expected an ISO date-time, got "${override}"`);
  return ms;
}

/** Runs a pipeline request in a command context and prints its summary; returns the exit code. */
export async function executePipeline(ctx: CommandContext, request: PipelineRequest): Promise<ExitCode> {
  const runStartedAt = runStartInstant();
  const bars = process.stderr.isTTY === true && !ctx.json;
  const result = await runPipeline(
    {
      config: ctx.config,
      warehouse: ctx.warehouse,
      log: ctx.log,
      signal: ctx.signal,
      host: ctx.host,
      runStartedAt,
      progress: bars ? barProgress(systemClock) : logProgress(ctx.log),
    },
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
  if (ctx.json) ctx.out(runSummaryJson(result));
  else for (const line of formatRunSummary(result)) ctx.out(line);
  return result.exitCode;
}

/** Runs a `run` or `backfill` request as a command: context, pipeline, summary, exit code. */
export async function runPipelineCommand(
  runtime: Runtime,
  cmd: Command,
  request: PipelineRequest,
): Promise<void> {
  const code = await withCommandContext(
    globalOptions(cmd),
    runtime,
    { accounts: true, migrate: true },
    (ctx) => executePipeline(ctx, request),
  );
  runtime.setExitCode(code);
}

/** `telecom-etl run`: the nightly incremental load of every stream of every account. */
export function registerRunCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("run")
    .description(
      "load every enabled stream of every account: open windows since the start date, the last lookback days again, and today (left open)",
    )
    .option("--streams <names>", "only these streams (comma-separated)")
    .option("--accounts <names>", "only these accounts (comma-separated)")
    .option("--until <date>", "load nothing after this day (YYYY-MM-DD, inclusive)")
    .option("--lock-timeout <seconds>", "wait this long for another run holding a stream's lock (default 0)")
    .action(async (options: Record<string, string | undefined>, cmd: Command) => {
      const request: PipelineRequest = {
        command: "run",
        streams: parseNameList("--streams", options.streams),
        accounts: parseNameList("--accounts", options.accounts),
        until: parseDateFlag("--until", options.until),
        lockTimeoutMs: parseLockTimeout(options.lockTimeout),
      };
      await runPipelineCommand(runtime, cmd, request);
    });
  withExample(
    command,
    "telecom-etl run",
    "telecom-etl run --streams cdrs --accounts acme --lock-timeout 60",
    "telecom-etl --json run --until 2026-08-31",
  );
}
