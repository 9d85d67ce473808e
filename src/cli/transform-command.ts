import type { Command } from "commander";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { parseLockTimeout } from "./parse-flags.js";
import { buildMarts } from "./transform-steps.js";

/**
 * `telecom-etl transform`: `dbt build` of staging, intermediate and marts on the warehouse, the marts
 * built and tested out of BI's sight and published only when every test passed; one at a time.
 */
export function registerTransformCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("transform")
    .description("build the reporting marts with dbt (staging -> intermediate -> marts) and run their tests")
    .option("--select <selector>", "dbt node selection, e.g. marts or +fct_invoices_reconciled")
    .option("--full-refresh", "rebuild incremental models from scratch")
    .option(
      "--unit-tests",
      "also run dbt's unit tests (checks of the KPI formulas on fixed inputs; skipped by default)",
    )
    .option(
      "--lock-timeout <seconds>",
      "wait this long for another transform building the marts (default 0: exit 4 at once)",
    )
    .action(
      async (
        options: { select?: string; fullRefresh?: boolean; unitTests?: boolean; lockTimeout?: string },
        cmd: Command,
      ) => {
        const lockTimeoutMs = parseLockTimeout(options.lockTimeout);
        const code = await withCommandContext(
          globalOptions(cmd),
          runtime,
          { accounts: false, migrate: true },
          (ctx) => buildMarts(ctx, { ...options, lockTimeoutMs }),
        );
        runtime.setExitCode(code);
      },
    );
  withExample(
    command,
    "telecom-etl transform",
    "telecom-etl transform --select +fct_invoices_reconciled",
    "telecom-etl transform --full-refresh",
  );
}
