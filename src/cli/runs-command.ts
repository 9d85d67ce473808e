import type { Command } from "commander";
import { UsageError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { sweepAbandonedRuns } from "../warehouse/coordination/abandoned-runs.js";
import { readRuns, runTotals, runWindowProblems } from "../warehouse/state/run-history.js";
import { listSchemaChanges } from "../warehouse/state/schema-changes.js";
import { listUnknownFields } from "../warehouse/state/unknown-fields.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { formatRunDetail, formatRunList } from "./format-runs.js";
import { formatSchemaChanges } from "./format-schema-changes.js";
import { globalOptions, withExample } from "./global-options.js";
import { parsePositiveInteger } from "./parse-flags.js";

/** `telecom-etl runs [list|show N]`: what each run did, from etl.runs, etl.run_streams and etl.run_slices. */
export function registerRunsCommand(program: Command, runtime: Runtime): void {
  const runs = program
    .command("runs")
    .description(
      "run history: what each run did (streams, windows, rows, requests, 429s, rejects, dbt, exit code)",
    );
  withExample(runs, "telecom-etl runs", "telecom-etl runs show 42", "telecom-etl runs list --limit 5 --json");

  const list = runs
    .command("list", { isDefault: true })
    .description("the latest runs, newest first, one line each")
    .option("--limit <n>", "how many runs (default 20)")
    .option("--json", "machine-readable output")
    .action(async (options: { limit?: string; json?: boolean }, cmd: Command) => {
      const global = globalOptions(cmd);
      const limit = parsePositiveInteger("--limit", options.limit) ?? 20;
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          // A run killed without recording its end would otherwise show as running forever.
          await sweepAbandonedRuns(ctx.warehouse.db, { host: ctx.host, log: ctx.log });
          const records = await readRuns(ctx.warehouse.db, { limit });
          if (global.json || options.json === true)
            ctx.out(JSON.stringify(records.map((r) => ({ ...r, totals: runTotals(r) }))));
          else for (const line of formatRunList(records)) ctx.out(line);
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });

  const show = runs
    .command("show <run>")
    .description(
      "one run in full: its streams and their re-counts, held and failed windows, deletions, dbt steps, new fields",
    )
    .option("--json", "machine-readable output")
    .action(async (id: string, options: { json?: boolean }, cmd: Command) => {
      const global = globalOptions(cmd);
      const runId = parsePositiveInteger("run", id) ?? 0;
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          await sweepAbandonedRuns(ctx.warehouse.db, { host: ctx.host, log: ctx.log });
          const [run] = await readRuns(ctx.warehouse.db, { ids: [runId] });
          if (run === undefined)
            throw new UsageError(
              `run ${runId} is not recorded in this warehouse; telecom-etl runs lists the latest`,
            );
          const windows = await runWindowProblems(ctx.warehouse.db, runId);
          const newFields = await listUnknownFields(ctx.warehouse.db, { firstSeenRun: runId });
          const newColumns = await listSchemaChanges(ctx.warehouse.db, { firstRun: runId });
          if (global.json || options.json === true)
            ctx.out(JSON.stringify({ ...run, totals: runTotals(run), windows, newFields, newColumns }));
          else {
            for (const line of formatRunDetail(run, windows, newFields)) ctx.out(line);
            const heading = "columns added in this run by schema_contract evolve (etl.schema_changes):";
            for (const line of formatSchemaChanges(newColumns, heading)) ctx.out(`  ${line}`);
          }
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(list, "telecom-etl runs list", "telecom-etl runs list --limit 5 --json");
  withExample(show, "telecom-etl runs show 42", "telecom-etl runs show 42 --json | jq .windows");
}
