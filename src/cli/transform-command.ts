import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { runDbt } from "../transform/run-dbt.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

/** `telecom-etl transform`: `dbt build` of staging, intermediate and marts on the warehouse. */
export function registerTransformCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("transform")
    .description("build the reporting marts with dbt (staging -> intermediate -> marts) and run their tests")
    .option("--select <selector>", "dbt node selection, e.g. marts or +fct_invoices_reconciled")
    .action(async (options: { select?: string }, cmd: Command) => {
      const code = await withCommandContext(
        globalOptions(cmd),
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          const args = options.select ? ["build", "--select", options.select] : ["build"];
          const result = await runDbt({
            databaseUrl: ctx.warehouse.url,
            log: ctx.log,
            args,
            signal: ctx.signal,
          });
          if (result.ok && result.selectedNothing && options.select) {
            throw new UsageError(`dbt selected nothing for --select ${options.select}`);
          }
          if (ctx.json) ctx.out(JSON.stringify({ ok: result.ok, summary: result.summary }));
          else
            ctx.out(
              result.ok ? `dbt build: ${result.summary}` : `dbt build failed:\n${result.tail.join("\n")}`,
            );
          return result.ok ? EXIT.ok : EXIT.workFailed;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(command, "telecom-etl transform", "telecom-etl transform --select +fct_invoices_reconciled");
}
