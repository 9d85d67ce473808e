import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { inertRuntime } from "../helpers/inert-runtime.js";

/** Every command below the program, groups included, with its words (`rejects list`). */
function commandsOf(command: Command, prefix: string[] = []): [string, Command][] {
  return command.commands.flatMap((sub) => {
    const words = [...prefix, sub.name()];
    return [[words.join(" "), sub] as [string, Command], ...commandsOf(sub, words)];
  });
}

/** What `--help` prints for `command`, the texts added after it included. */
function helpOf(command: Command): string {
  let text = "";
  command.configureOutput({
    writeOut: (chunk) => {
      text += chunk;
    },
  });
  command.outputHelp();
  return text;
}

describe("help texts", () => {
  const commands = commandsOf(buildProgram(inertRuntime));

  it("covers the group commands", () => {
    expect(commands.map(([name]) => name)).toEqual(
      expect.arrayContaining(["rejects", "state", "warehouse", "config"]),
    );
  });

  it.each(commands)("`%s --help` ends with an example of itself", (name, command) => {
    expect(helpOf(command)).toMatch(
      new RegExp(`\\nExample:\\n(  \\$ .*\\n)*  \\$ telecom-etl (--\\S+ )*${name}\\b`),
    );
  });
});
