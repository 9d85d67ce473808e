import type { Command } from "commander";
import { UsageError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { requireKnownAccounts } from "../pipeline/plan/select-targets.js";
import { withRecordedRun } from "../pipeline/run/recorded-run.js";
import { getStream } from "../streams/registry.js";
import { accountsWithState, resetStreamState } from "../warehouse/state/stream-state.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { parseDateFlag, parseLockTimeout, parseNameList } from "./parse-flags.js";

/** `telecom-etl state reset`: forget completed windows so the next run loads them again. */
export function registerStateCommand(program: Command, runtime: Runtime): void {
  const state = program.command("state").description("the set of completed windows per account and stream");
  withExample(state, "telecom-etl state reset --streams cdrs --from 2026-08-10 --yes");
  const reset = state
    .command("reset")
    .description(
      "forget completed windows (from --from on, when given) so the next run loads them again; rows stay",
    )
    .requiredOption("--streams <names>", "streams to reset (comma-separated)")
    .option("--accounts <names>", "only these accounts (comma-separated; default all)")
    .option("--from <date>", "only windows ending after this day (YYYY-MM-DD)")
    .option("--yes", "really do it")
    .option("--lock-timeout <seconds>", "wait this long for a run holding a stream's lock (default 0)")
    .action(async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
      const streams = parseNameList("--streams", options.streams as string)!.map(
        (name) => getStream(name).name,
      );
      const accounts = parseNameList("--accounts", options.accounts as string | undefined);
      const from = parseDateFlag("--from", options.from as string | undefined);
      const lockTimeoutMs = parseLockTimeout(options.lockTimeout as string | undefined);
      const what = `completed windows of ${streams.join(", ")}${accounts ? ` for ${accounts.join(", ")}` : ""}${from ? ` ending after ${from}` : ""}`;
      if (options.yes !== true) throw new UsageError(`refusing to forget ${what} without --yes`);
      const code = await withCommandContext(
        globalOptions(cmd),
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          const known = [
            ...new Set([
              ...ctx.config.accounts.map((a) => a.name),
              ...(await accountsWithState(ctx.warehouse.db)),
            ]),
          ].sort();
          requireKnownAccounts(accounts, known);
          // The delete touches exactly the accounts locked here: the named ones, or every configured
          // account and every account with state (a run of another config may be loading one now).
          const targets = accounts ?? known;
          return withRecordedRun(
            { warehouse: ctx.warehouse, log: ctx.log, host: ctx.host, signal: ctx.signal },
            {
              command: "state reset",
              arguments: { streams, accounts: accounts ?? null, from: from ?? null },
              locks: targets.flatMap((account) => streams.map((stream) => ({ account, stream }))),
              lockTimeoutMs,
            },
            async () => {
              const forgotten = await resetStreamState(ctx.warehouse.db, {
                streams,
                accounts: targets,
                from,
              });
              ctx.out(
                ctx.json
                  ? JSON.stringify({ forgotten })
                  : `forgot ${forgotten} ${what}; the next run loads them again`,
              );
              return { result: EXIT.ok, outcome: { status: "succeeded", exitCode: EXIT.ok } };
            },
          );
        },
      );
      runtime.setExitCode(code);
    });
  withExample(
    reset,
    "telecom-etl state reset --streams cdrs --from 2026-08-10 --yes",
    "telecom-etl state reset --streams short_link_metrics --accounts acme --yes",
  );
}
