import type { Command } from "commander";
import { checkReportPath } from "../report/report-path.js";
import { recordRunDbt } from "../warehouse/state/run-history.js";
import type { Runtime } from "./command-context.js";
import { withExample } from "./global-options.js";
import { reportAfterNight, reportFileOption } from "./report-command.js";
import { loadOptionsFrom, runPipelineCommand, runRequestFrom, withRunFlags } from "./run-command.js";
import { loadedSources, transformAfterLoad } from "./transform-steps.js";

/**
 * `telecom-etl nightly`: the scheduled job in one command: `run`, then `transform` (also after a
 * partial load, so BI sees what landed), then `dbt source freshness`; exits with the worst of the
 * three codes. When the load could not start (configuration, credentials, another run's lock,
 * interruption) nothing else runs. `--report [file]` then writes the night's HTML page.
 */
export function registerNightlyCommand(program: Command, runtime: Runtime): void {
  const command = withRunFlags(
    program
      .command("nightly")
      .description(
        "the nightly job: run (load), then transform (dbt build), then dbt source freshness; exits with the worst code",
      ),
  )
    .option("--report [file]", "after the transform, write the night's HTML page (default night.html)")
    .action(async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
      const request = runRequestFrom(options);
      const report = reportFileOption(options.report);
      if (report !== undefined) await checkReportPath(report);
      await runPipelineCommand(
        runtime,
        cmd,
        request,
        { ...loadOptionsFrom(options), retireOldMonths: true },
        async (ctx, load, dbtSteps) => {
          const code = await transformAfterLoad(
            ctx,
            load,
            loadedSources(ctx.config, request),
            { lockTimeoutMs: request.lockTimeoutMs },
            dbtSteps,
          );
          if (report === undefined) return code;
          // The page shows the nightly's duration with its dbt steps: recorded before it is written
          // (and again, with the final code and end, when the command ends).
          await recordRunDbt(
            ctx.warehouse.db,
            load.runId,
            { command: "nightly", exitCode: code, steps: dbtSteps },
            new Date(),
          ).catch((error: unknown) =>
            ctx.log.warn(
              { error: String(error) },
              "could not record the nightly's dbt steps before its page",
            ),
          );
          return reportAfterNight(ctx, report, code);
        },
      );
    });
  withExample(
    command,
    "telecom-etl nightly",
    "telecom-etl nightly --lock-timeout 600",
    "telecom-etl nightly --accounts acme --streams cdrs,short_link_metrics",
    "telecom-etl nightly --report /var/www/etl/night.html",
  );
}
