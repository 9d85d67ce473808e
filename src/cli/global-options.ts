import type { Command } from "commander";
import { UsageError } from "../core/errors.js";
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from "../core/log.js";
import type { GlobalOptions } from "./command-context.js";

/** The global options as parsed by commander, from any (sub)command. */
export function globalOptions(command: Command): GlobalOptions {
  const opts = command.optsWithGlobals() as Partial<GlobalOptions> & {
    logLevel?: string;
    logFormat?: string;
  };
  const level = opts.logLevel ?? process.env.LOG_LEVEL ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(", ")}, got "${level}"`);
  }
  return {
    config: opts.config,
    databaseUrl: opts.databaseUrl,
    logLevel: level as LogLevel,
    logFormat: logFormatOf(opts.logFormat),
    json: opts.json === true,
  };
}

/**
 * The log format: `--log-format`, else `TELECOM_ETL_LOG_FORMAT`, else human lines on a terminal and
 * JSON lines anywhere else (cron, systemd, Kubernetes, a pipe).
 */
export function logFormatOf(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  stderrIsTty = process.stderr.isTTY === true,
): LogFormat {
  const chosen = flag ?? (env.TELECOM_ETL_LOG_FORMAT || undefined);
  if (chosen === undefined) return stderrIsTty ? "pretty" : "json";
  if (!(LOG_FORMATS as readonly string[]).includes(chosen)) {
    throw new UsageError(
      `TELECOM_ETL_LOG_FORMAT: expected one of ${LOG_FORMATS.join(", ")}, got "${chosen}"`,
    );
  }
  return chosen as LogFormat;
}

/** Appends an "Example:" block to a command's help. */
export function withExample(command: Command, ...examples: string[]): Command {
  return command.addHelpText("after", `\nExample:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n`);
}
