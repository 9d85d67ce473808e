import type { Command } from "commander";
import { EXIT } from "../core/exit-codes.js";
import { formatQueueView, readQueueView } from "../distributed/queue-view.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

/** `telecom-etl queue`: the distributed load's work units: counts by state, units in hand, recent failures. */
export function registerQueueCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("queue")
    .description(
      "the work units of distributed runs: how many wait, run, finished, failed; which account each worker holds",
    )
    .option("--json", "machine-readable output")
    .action(async (options: { json?: boolean }, cmd: Command) => {
      const global = globalOptions(cmd);
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: false },
        async (ctx) => {
          const view = await readQueueView(ctx.warehouse);
          if (global.json || options.json === true) ctx.out(JSON.stringify(view));
          else for (const line of formatQueueView(view)) ctx.out(line);
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(command, "telecom-etl queue", "telecom-etl queue --json");
}
