import type { Command } from "commander";
import { EXIT } from "../core/exit-codes.js";
import { listSchemaChanges } from "../warehouse/state/schema-changes.js";
import { listUnknownFields } from "../warehouse/state/unknown-fields.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { formatUnknownFields } from "./format-runs.js";
import { contractNotes, formatSchemaChanges } from "./format-schema-changes.js";
import { globalOptions, withExample } from "./global-options.js";

/** `telecom-etl schema`: the fields the platform sends that the loader's schema does not know. */
export function registerSchemaCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("schema")
    .description(
      "fields the platform sends that the loader's schema does not know (kept in _extra, unless the stream's schema_contract says otherwise): stream, first seen (run, time, account, window), example type; and the columns schema_contract evolve added",
    )
    .option("--stream <name>", "only this stream")
    .option("--columns", "only the columns schema_contract evolve added (etl.schema_changes)")
    .option("--json", "machine-readable output")
    .action(async (options: { stream?: string; columns?: boolean; json?: boolean }, cmd: Command) => {
      const global = globalOptions(cmd);
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          const json = global.json || options.json === true;
          const changes = await listSchemaChanges(ctx.warehouse.db, { stream: options.stream });
          if (options.columns === true) {
            if (json) ctx.out(JSON.stringify(changes));
            else for (const line of formatSchemaChanges(changes)) ctx.out(line);
            return EXIT.ok;
          }
          const fields = await listUnknownFields(ctx.warehouse.db, { stream: options.stream });
          if (json) ctx.out(JSON.stringify(fields));
          else {
            const contracts = Object.fromEntries(
              Object.entries(ctx.config.streamOptions).map(([stream, o]) => [stream, o?.schemaContract]),
            );
            const lines = [
              ...formatUnknownFields(fields),
              ...contractNotes(contracts),
              ...formatSchemaChanges(changes),
            ];
            for (const line of lines) ctx.out(line);
          }
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(
    command,
    "telecom-etl schema",
    "telecom-etl schema --stream cdrs --json",
    "telecom-etl schema --columns",
  );
}
