import type { Command } from "commander";
import type { ExitCode } from "../core/exit-codes.js";
import { systemClock } from "../core/ports.js";
import { utcDayOf } from "../core/utc-days.js";
import { demoConfig, trackDemoValidations } from "../demo/demo-config.js";
import { martsSummary } from "../demo/marts-summary.js";
import { warehouseSummary } from "../demo/warehouse-summary.js";
import { formatRunSummary } from "../pipeline/run/format-summary.js";
import { runPipeline } from "../pipeline/run/run-pipeline.js";
import { barProgress, logProgress } from "../pipeline/run/run-progress.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { ownCommand } from "./own-command.js";
import { parsePositiveInteger } from "./parse-flags.js";
import { loadSandbox } from "./sandbox-module.js";
import { loadedSources, transformAfterLoad } from "./transform-steps.js";

interface DemoOptions {
  readonly days: string;
  readonly callsPerDay: string;
  readonly accounts: string;
  readonly seed: string;
  readonly transform: boolean;
}

/**
 * `telecom-etl demo`: the main job on the embedded defaults. Starts the platform sandbox in this
 * process, runs what `nightly` runs (load every seeded account into the warehouse, embedded unless
 * DATABASE_URL; dbt build; source freshness) and prints what landed. Re-running it is incremental.
 */
export function registerDemoCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("demo")
    .description(
      "load the seeded sandbox into the warehouse (embedded by default), build the marts, print a summary",
    )
    .option("--days <n>", "days of sandbox traffic", "45")
    .option("--calls-per-day <n>", "mean calls per account per day", "400")
    .option("--accounts <n>", "sandbox accounts (one master, the rest sub-accounts)", "3")
    .option("--seed <n>", "sandbox seed", "1")
    .option("--no-transform", "skip the dbt build and the source freshness check")
    .action(async (options: DemoOptions, cmd: Command) => {
      const days = parsePositiveInteger("--days", options.days, "a whole number >= 1")!;
      const callsPerDay = parsePositiveInteger(
        "--calls-per-day",
        options.callsPerDay,
        "a whole number >= 1",
      )!;
      const accounts = parsePositiveInteger("--accounts", options.accounts, "a whole number >= 1")!;
      const seed = parsePositiveInteger("--seed", options.seed, "a whole number >= 1")!;
      const { startSandbox } = await loadSandbox();
      const code = await withCommandContext(
        globalOptions(cmd),
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          const sandbox = await startSandbox({ port: 0, seed, days, callsPerDay, accounts });
          try {
            ctx.out(`sandbox ${sandbox.url}: ${accounts} accounts, ${days} days from ${sandbox.world.start}`);
            await trackDemoValidations(ctx.warehouse, sandbox);
            const bars = process.stderr.isTTY === true && !ctx.json;
            const config = demoConfig(ctx.config, sandbox);
            const result = await runPipeline(
              {
                config,
                warehouse: ctx.warehouse,
                log: ctx.log,
                signal: ctx.signal,
                host: ctx.host,
                runStartedAt: sandbox.runtime.clock.now(),
                progress: bars ? barProgress(systemClock) : logProgress(ctx.log),
                secrets: ctx.secrets,
              },
              { command: "run" },
            );
            for (const line of formatRunSummary(result)) ctx.out(line);
            // The rest of `nightly`: dbt build, then source freshness (exit: the worst of the three).
            const exit: ExitCode = options.transform
              ? await transformAfterLoad(ctx, result, loadedSources(config, {}))
              : result.exitCode;
            for (const line of await warehouseSummary(ctx.warehouse)) ctx.out(line);
            const today = utcDayOf(sandbox.runtime.clock.now());
            for (const line of await martsSummary(ctx.warehouse, today)) ctx.out(line);
            ctx.out(
              ctx.config.databaseUrl
                ? `warehouse: ${ctx.warehouse.where}`
                : embeddedWarehouseLine(ctx.config.embeddedDir),
            );
            return exit;
          } finally {
            await sandbox.close();
          }
        },
      );
      runtime.setExitCode(code);
    });
  withExample(command, "telecom-etl demo", "telecom-etl demo --days 30 --calls-per-day 2000 --no-transform");
}

/** The demo's last line with an embedded warehouse: where it is and the command that serves it. */
export function embeddedWarehouseLine(embeddedDir: string, cwd?: string): string {
  return `warehouse: embedded, in ${embeddedDir} (stopped on exit; \`${ownCommand(cwd)} warehouse up\` serves it to psql or a BI tool)`;
}
