import type { Command } from "commander";
import { EXIT } from "../core/exit-codes.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

/** `telecom-etl migrate`: applies pending migrations under an advisory lock; a second call is a no-op. */
export function registerMigrateCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("migrate")
    .description("apply pending SQL migrations from sql/migrations (refuses edited applied files)")
    .action(async (_options, cmd: Command) => {
      const code = await withCommandContext(
        globalOptions(cmd),
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          const result = ctx.migrated!;
          if (ctx.json) ctx.out(JSON.stringify(result));
          else if (result.applied.length === 0)
            ctx.out(`schema is up to date (${result.alreadyApplied.length} migrations)`);
          else ctx.out(`applied ${result.applied.length} migration(s): ${result.applied.join(", ")}`);
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(
    command,
    "telecom-etl migrate",
    "DATABASE_URL=postgres://etl@db:5432/warehouse telecom-etl migrate",
  );
}
