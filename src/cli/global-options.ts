import type { Command } from "commander";
import type { GlobalOptions } from "./command-context.js";

/** The global options as parsed by commander, from any (sub)command. */
export function globalOptions(command: Command): GlobalOptions {
  const opts = command.optsWithGlobals() as Partial<GlobalOptions> & { logLevel?: string };
  return {
    config: opts.config,
    databaseUrl: opts.databaseUrl,
    logLevel: (opts.logLevel ?? process.env.LOG_LEVEL ?? "info") as GlobalOptions["logLevel"],
    json: opts.json === true,
  };
}

/** Appends an "Example:" block to a command's help. */
export function withExample(command: Command, ...examples: string[]): Command {
  return command.addHelpText("after", `\nExample:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n`);
}
