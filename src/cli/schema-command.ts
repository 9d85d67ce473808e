import type { Command } from "commander";
import { EXIT } from "../core/exit-codes.js";
import { listUnknownFields } from "../warehouse/state/unknown-fields.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { formatUnknownFields } from "./format-runs.js";
import { globalOptions, withExample } from "./global-options.js";

/** `telecom-etl schema`: the fields the platform sends that the loader's schema does not know. */
export function registerSchemaCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("schema")
    .description(
      "fields the platform sends that the loader's schema does not know (kept in _extra): stream, first seen (run, time, account, window), example type",
    )
    .option("--stream <name>", "only this stream")
    .option("--json", "machine-readable output")
    .action(async (options: { stream?: string; json?: boolean }, cmd: Command) => {
      const global = globalOptions(cmd);
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          const fields = await listUnknownFields(ctx.warehouse.db, { stream: options.stream });
          if (global.json || options.json === true) ctx.out(JSON.stringify(fields));
          else for (const line of formatUnknownFields(fields)) ctx.out(line);
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(command, "telecom-etl schema", "telecom-etl schema --stream cdrs --json");
}
