import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { LOG_LEVELS, type LogLevel } from "../log.js";
import type { GlobalOptions } from "./command-context.js";

/** The global options as parsed by commander, from any (sub)command. */
export function globalOptions(command: Command): GlobalOptions {
  const opts = command.optsWithGlobals() as Partial<GlobalOptions> & { logLevel?: string };
  const level = opts.logLevel ?? process.env.LOG_LEVEL ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(", ")}, got "${level}"`);
  }
  return {
    config: opts.config,
    databaseUrl: opts.databaseUrl,
    logLevel: level as LogLevel,
    json: opts.json === true,
  };
}

/** Appends an "Example:" block to a command's help. */
export function withExample(command: Command, ...examples: string[]): Command {
  return command.addHelpText("after", `\nExample:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n`);
}
