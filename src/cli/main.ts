import { Command, CommanderError, Option } from "commander";
import { describeError } from "../errors.js";
import { EXIT, type ExitCode, exitCodeFor } from "../exit-codes.js";
import { KnownSecrets } from "../known-secrets.js";
import { createLogger, LOG_LEVELS, type Logger } from "../log.js";
import type { GlobalOptions, Runtime } from "./command-context.js";
import { registerCommands } from "./register-commands.js";

/** Builds the commander program with global options and every command. */
export function buildProgram(runtime: Runtime): Command {
  const program = new Command("telecom-etl")
    .description("Load a telecom platform's API into a Postgres warehouse and build reporting marts.")
    .option("--config <file>", "YAML config file (default: $TELECOM_ETL_CONFIG or ./telecom-etl.yaml)")
    .option("--database-url <url>", "PostgreSQL URL of the warehouse (default: $DATABASE_URL, else embedded)")
    .addOption(new Option("--log-level <level>", "log level").choices(LOG_LEVELS))
    .option("--json", "machine-readable output for status-like commands")
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  registerCommands(program, runtime);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * Runs the CLI with `argv` and resolves to the exit code. Handles SIGINT/SIGTERM: the first
 * aborts the command (it stops between transactions), cleanups run, and the code is 130; a second
 * signal exits the process at once, with 130 too.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  const cleanups = new Set<() => Promise<void>>();
  let logger: Logger | undefined;
  const secrets = new KnownSecrets();
  let exitCode: ExitCode = EXIT.ok;
  let signalIsNormalEnd = false;
  const runCleanups = async () => {
    for (const cleanup of [...cleanups].reverse()) {
      cleanups.delete(cleanup);
      await cleanup().catch(() => {});
    }
  };
  const runtime: Runtime = {
    signal: controller.signal,
    secrets,
    onCleanup: (cleanup) => {
      cleanups.add(cleanup);
      return () => cleanups.delete(cleanup);
    },
    logger: (options: GlobalOptions) => {
      logger ??= createLogger(options.logLevel, undefined, { secrets });
      return logger;
    },
    setExitCode: (code) => {
      exitCode = code;
    },
    endsOnSignal: () => {
      signalIsNormalEnd = true;
    },
  };
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) {
      // At once: a cleanup may itself wait on a stalled connection. Exiting closes every socket,
      // so the server rolls back the open transactions and releases the run's locks; an embedded
      // warehouse is stopped by its watchdog.
      process.stderr.write(`telecom-etl: ${signal} received again; exiting now (${EXIT.interrupted})\n`);
      process.exit(EXIT.interrupted);
    }
    interrupted = true;
    process.stderr.write(
      `telecom-etl: ${signal} received; stopping after the current step (again to force)\n`,
    );
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await buildProgram(runtime).parseAsync(argv, { from: "user" });
    return interrupted && !signalIsNormalEnd ? EXIT.interrupted : exitCode;
  } catch (error) {
    if (interrupted) return EXIT.interrupted;
    const code = exitCodeFor(error);
    if (!(error instanceof CommanderError)) {
      for (const line of describeError(error).split("\n"))
        process.stderr.write(`telecom-etl: ${secrets.maskText(line)}\n`);
      if (code === EXIT.workFailed) logger?.debug({ err: error }, "unexpected error");
    }
    return code;
  } finally {
    await runCleanups();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
