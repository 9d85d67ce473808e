import { Command, CommanderError, Option } from "commander";
import { describeError } from "../core/errors.js";
import { EXIT, type ExitCode, exitCodeFor } from "../core/exit-codes.js";
import { KnownSecrets } from "../core/known-secrets.js";
import { createLogger, LOG_FORMATS, LOG_LEVELS, type Logger } from "../core/log.js";
import { processStderr } from "../core/stderr-lines.js";
import { printable } from "../core/terminal-text.js";
import type { GlobalOptions, Runtime } from "./command-context.js";
import { registerCommands } from "./register-commands.js";
import { versionText } from "./version-text.js";

/** Builds the commander program with global options and every command. */
export function buildProgram(runtime: Runtime): Command {
  const program = new Command("telecom-etl")
    .description("Load a telecom platform's API into a Postgres warehouse and build reporting marts.")
    .option("--config <file>", "YAML config file (default: $TELECOM_ETL_CONFIG or ./telecom-etl.yaml)")
    .option("--database-url <url>", "PostgreSQL URL of the warehouse (default: $DATABASE_URL, else embedded)")
    .addOption(
      new Option("--log-level <level>", "log level (default: $LOG_LEVEL or info)").choices(LOG_LEVELS),
    )
    .addOption(
      new Option(
        "--log-format <format>",
        "log lines on stderr: pretty (human, one line a record; no colour with NO_COLOR) or json (default: $TELECOM_ETL_LOG_FORMAT, else pretty on a terminal, json otherwise)",
      ).choices(LOG_FORMATS),
    )
    .option("--json", "machine-readable output for status-like commands")
    .version(
      versionText(),
      "-V, --version",
      "print the version, the warehouse schema version and the dbt-core version, and exit",
    )
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
      logger ??= createLogger(options.logLevel, options.logFormat === "pretty", { secrets });
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
      // Straight to stderr: the process exits before progress bars would print a line above them.
      process.stderr.write(`\ntelecom-etl: ${signal} received again; exiting now (${EXIT.interrupted})\n`);
      process.exit(EXIT.interrupted);
    }
    interrupted = true;
    processStderr.write(
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
        processStderr.write(`telecom-etl: ${printable(secrets.maskText(line))}\n`);
      if (code === EXIT.workFailed) logger?.debug({ err: error }, "unexpected error");
    }
    return code;
  } finally {
    await runCleanups();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
