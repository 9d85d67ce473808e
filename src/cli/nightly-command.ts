import type { Command } from "commander";
import type { Runtime } from "./command-context.js";
import { withExample } from "./global-options.js";
import { nowOverridesFrom, runPipelineCommand, runRequestFrom, withRunFlags } from "./run-command.js";
import { loadedSources, transformAfterLoad } from "./transform-steps.js";

/**
 * `telecom-etl nightly`: the scheduled job in one command: `run`, then `transform` (also after a
 * partial load, so BI sees what landed), then `dbt source freshness`; exits with the worst of the
 * three codes. When the load could not start (configuration, credentials, another run's lock,
 * interruption) nothing else runs.
 */
export function registerNightlyCommand(program: Command, runtime: Runtime): void {
  const command = withRunFlags(
    program
      .command("nightly")
      .description(
        "the nightly job: run (load), then transform (dbt build), then dbt source freshness; exits with the worst code",
      ),
  ).action(async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
    const request = runRequestFrom(options);
    await runPipelineCommand(runtime, cmd, request, nowOverridesFrom(options), (ctx, load, dbtSteps) =>
      transformAfterLoad(
        ctx,
        load,
        loadedSources(ctx.config, request),
        { lockTimeoutMs: request.lockTimeoutMs },
        dbtSteps,
      ),
    );
  });
  withExample(
    command,
    "telecom-etl nightly",
    "telecom-etl nightly --lock-timeout 600",
    "telecom-etl nightly --accounts acme --streams cdrs,short_link_metrics",
  );
}
