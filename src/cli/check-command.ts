import type { Command } from "commander";
import { checkExitCode, checkVerdict, formatCheckItem } from "../check/check-item.js";
import { runChecks } from "../check/run-checks.js";
import { loadConfig } from "../config/config.js";
import { systemClock } from "../core/ports.js";
import { requireKnownAccounts } from "../pipeline/plan/select-targets.js";
import { getStream } from "../streams/registry.js";
import { openWarehouse, printLine, type Runtime, rememberConfigSecrets } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { nowOverridesFrom, withNowFlags } from "./now-flags.js";
import { parseNameList } from "./parse-flags.js";
import { runStartInstant } from "./run-command.js";

/**
 * `telecom-etl check`: finds configuration mistakes before the night does, one line per item
 * (`ok`, or what is wrong and how to fix it). Exit 0 when nothing failed (warnings allowed), 2 on
 * any configuration error, 1 when something could not be checked now (a timeout, a 5xx).
 */
export function registerCheckCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("check")
    .description(
      "check accounts (host, key, API revision, clock, each stream's permission), the warehouse (migrations, BI role) and dbt; changes nothing",
    )
    .option("--accounts <names>", "only these accounts (comma-separated)")
    .option("--streams <names>", "only these streams (comma-separated)");
  withNowFlags(command).action(async (options: Record<string, string | undefined>, cmd: Command) => {
    const global = globalOptions(cmd);
    const log = runtime.logger(global);
    // Keys are checked per account (one line each), not refused all at once.
    const config = await loadConfig({
      file: global.config,
      databaseUrl: global.databaseUrl,
      requireAccounts: false,
    });
    const accounts = parseNameList("--accounts", options.accounts);
    requireKnownAccounts(
      accounts,
      config.accounts.map((a) => a.name),
      "configured",
    );
    const streams = parseNameList("--streams", options.streams)?.map((name) => getStream(name).name);
    rememberConfigSecrets(config, runtime.secrets, process.env);
    const out = (line: string) => printLine(runtime.secrets, line);
    const items = await runChecks(
      {
        config,
        env: process.env,
        clock: systemClock,
        secrets: runtime.secrets,
        signal: runtime.signal,
        runStartInstant: () => {
          const flags = nowOverridesFrom(options);
          return runStartInstant(process.env, {
            allowFuture: flags.allowFutureNow,
            allowPast: flags.allowPastNow,
          });
        },
        openWarehouse: async () => {
          const { warehouse, embedded } = await openWarehouse(config, log, runtime);
          return {
            ...warehouse,
            close: async () => {
              await warehouse.close();
              await embedded?.stop();
            },
          };
        },
        report: (group) => {
          if (!global.json) for (const item of group) out(formatCheckItem(item));
        },
      },
      { ...(accounts === undefined ? {} : { accounts }), ...(streams === undefined ? {} : { streams }) },
    );
    const exitCode = checkExitCode(items);
    out(global.json ? JSON.stringify({ items, exitCode }) : checkVerdict(items));
    runtime.setExitCode(exitCode);
  });
  withExample(
    command,
    "telecom-etl check",
    "telecom-etl check --accounts acme --streams cdrs,invoices",
    "telecom-etl --json check",
  );
}
