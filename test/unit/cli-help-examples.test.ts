import { describe, expect, it } from "vitest";
import { commandsOf, helpOf } from "../../src/cli/commands-reference.js";
import { buildProgram } from "../../src/cli/main.js";
import { inertRuntime } from "../helpers/inert-runtime.js";

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
