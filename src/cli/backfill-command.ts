import type { Command } from "commander";
import type { PipelineRequest } from "../pipeline/run/run-pipeline.js";
import type { Runtime } from "./command-context.js";
import { withExample } from "./global-options.js";
import { acceptedHoldsFrom, withHoldFlags } from "./hold-flags.js";
import { withNowFlags } from "./now-flags.js";
import { parseDateRange, parseLockTimeout, parseNameList } from "./parse-flags.js";
import { loadOptionsFrom, runPipelineCommand, withDistributedFlags } from "./run-command.js";

/**
 * `telecom-etl backfill`: loads the windows of [--from, --to] of the given streams that are not
 * settled yet (all of them with `--refetch`) and records those it settles as completed; it never
 * removes completion, so running it again reads only what is still open.
 */
export function registerBackfillCommand(program: Command, runtime: Runtime): void {
  const command = withHoldFlags(program.command("backfill"))
    .description(
      "load the days --from..--to (inclusive) of the given streams, skipping windows already settled (--refetch reads them too)",
    )
    .requiredOption("--streams <names>", "streams to load (comma-separated)")
    .requiredOption("--from <date>", "first day, YYYY-MM-DD")
    .requiredOption("--to <date>", "last day, YYYY-MM-DD (inclusive)")
    .option("--accounts <names>", "only these accounts (comma-separated)")
    .option("--refetch", "read the windows of the range that are settled already too (default: skip them)")
    .option("--lock-timeout <seconds>", "wait this long for another run holding a stream's lock (default 0)");
  withDistributedFlags(withNowFlags(command)).action(
    async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
      const { from, to } = parseDateRange(
        options.from as string | undefined,
        options.to as string | undefined,
      );
      const request: PipelineRequest = {
        command: "backfill",
        streams: parseNameList("--streams", options.streams as string | undefined)!,
        accounts: parseNameList("--accounts", options.accounts as string | undefined),
        from,
        to,
        refetch: options.refetch === true,
        lockTimeoutMs: parseLockTimeout(options.lockTimeout as string | undefined),
        accepted: acceptedHoldsFrom(options),
      };
      await runPipelineCommand(runtime, cmd, request, loadOptionsFrom(options));
    },
  );
  withExample(
    command,
    "telecom-etl backfill --streams cdrs --from 2026-01-01 --to 2026-03-31",
    "telecom-etl backfill --streams cdrs,short_link_metrics --from 2026-08-01 --to 2026-08-07 --accounts acme",
    "telecom-etl backfill --streams cdrs --from 2026-08-01 --to 2026-08-07 --refetch",
  );
}
