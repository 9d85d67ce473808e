import type { Command } from "commander";
import { formatRecountSummary, runSummaryJson } from "../pipeline/run/format-summary.js";
import { type RecountRequest, runPipeline } from "../pipeline/run/run-pipeline.js";
import { logProgress } from "../pipeline/run/run-progress.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { nowOverridesFrom, withNowFlags } from "./now-flags.js";
import { parseDateRange, parseLockTimeout, parseNameList } from "./parse-flags.js";
import { runStartInstant } from "./run-command.js";

/**
 * `telecom-etl recount --from --to`: the re-count of every `run` on demand, for every settled
 * window of the range (no budget): each window's `pagination.total` (per direction) against the
 * rows the warehouse holds; a window that differs is opened again, and the next run reads it.
 * Exit 0 when every window agrees, 1 when one differed (or a re-count stopped early).
 */
export function registerRecountCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("recount")
    .description(
      "count the settled windows of --from..--to against the platform's totals; a window that differs is opened again (the next run reads it); exit 1 when one differs",
    )
    .requiredOption("--from <date>", "first day, YYYY-MM-DD")
    .requiredOption("--to <date>", "last day, YYYY-MM-DD (inclusive)")
    .option("--streams <names>", "only these streams (comma-separated; date-windowed lists with a total)")
    .option("--accounts <names>", "only these accounts (comma-separated)")
    .option("--lock-timeout <seconds>", "wait this long for another run holding a stream's lock (default 0)");
  withNowFlags(command).action(
    async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
      const { from, to } = parseDateRange(
        options.from as string | undefined,
        options.to as string | undefined,
      );
      const request: RecountRequest = {
        command: "recount",
        from,
        to,
        streams: parseNameList("--streams", options.streams as string | undefined),
        accounts: parseNameList("--accounts", options.accounts as string | undefined),
        lockTimeoutMs: parseLockTimeout(options.lockTimeout as string | undefined),
      };
      const flags = nowOverridesFrom(options);
      const now = { allowFuture: flags.allowFutureNow, allowPast: flags.allowPastNow };
      // Checked before the warehouse opens: a bad TELECOM_ETL_NOW is a usage error that does nothing.
      runStartInstant(process.env, now);
      const global = globalOptions(cmd);
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: true, migrate: true, touchedAccounts: request.accounts },
        async (ctx) => {
          const result = await runPipeline(
            {
              config: ctx.config,
              warehouse: ctx.warehouse,
              log: ctx.log,
              signal: ctx.signal,
              host: ctx.host,
              runStartedAt: runStartInstant(process.env, now),
              secrets: ctx.secrets,
              progress: logProgress(ctx.log),
            },
            request,
          );
          ctx.out(ctx.json ? runSummaryJson(result) : formatRecountSummary(result).join("\n"));
          return result.exitCode;
        },
      );
      runtime.setExitCode(code);
    },
  );
  withExample(
    command,
    "telecom-etl recount --from 2026-07-01 --to 2026-07-31",
    "telecom-etl recount --from 2026-08-01 --to 2026-08-07 --streams cdrs --accounts acme",
    "telecom-etl --json recount --from 2026-08-01 --to 2026-08-07",
  );
}
