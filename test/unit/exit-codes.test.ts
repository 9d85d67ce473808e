import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import {
  AuthError,
  LockHeldError,
  MigrationChecksumError,
  PermissionError,
  SliceError,
  UsageError,
} from "../../src/core/errors.js";
import { EXIT, EXIT_SEVERITY, exitCodeFor, worstExitCode } from "../../src/core/exit-codes.js";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

const SAMPLES: readonly [string, unknown, number][] = [
  ["UsageError", new UsageError("bad flag"), EXIT.usage],
  ["MigrationChecksumError", new MigrationChecksumError("edited"), EXIT.usage],
  ["AuthError", new AuthError("401"), EXIT.usage],
  ["LockHeldError", new LockHeldError("held"), EXIT.locked],
  ["SliceError", new SliceError("400"), EXIT.workFailed],
  ["PermissionError", new PermissionError("403"), EXIT.workFailed],
  ["Error", new Error("boom"), EXIT.workFailed],
  ["a string", "boom", EXIT.workFailed],
  ["commander usage", new CommanderError(1, "commander.unknownOption", "unknown option"), EXIT.usage],
  ["commander --help", new CommanderError(0, "commander.helpDisplayed", "(outputHelp)"), EXIT.ok],
];

describe("exit codes", () => {
  it.each(SAMPLES)("maps %s to its documented code", (_name, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });

  it("an interruption wins over the error it caused", () => {
    expect(exitCodeFor(new LockHeldError("held"), true)).toBe(EXIT.interrupted);
    expect(exitCodeFor(new Error("aborted"), true)).toBe(EXIT.interrupted);
  });

  it("no module picks an exit code by error class itself (they call exitCodeFor)", () => {
    const deciding = sourceFiles(SRC)
      .filter((file) =>
        /instanceof (LockHeldError|UsageError)\s*\?\s*EXIT\./.test(readFileSync(file, "utf8")),
      )
      .map((file) => path.relative(SRC, file));
    expect(deciding).toEqual([]);
  });

  it("the worst of a chain of steps: a step that did nothing, then a broken build, then a failed window", () => {
    expect(worstExitCode([])).toBe(EXIT.ok);
    expect(worstExitCode([EXIT.workFailed, EXIT.ok, EXIT.ok])).toBe(EXIT.workFailed);
    expect(worstExitCode([EXIT.quarantined, EXIT.transformFailed, EXIT.ok])).toBe(EXIT.transformFailed);
    expect(worstExitCode([EXIT.workFailed, EXIT.transformFailed])).toBe(EXIT.transformFailed);
    expect(worstExitCode([EXIT.ok, EXIT.ok, EXIT.sourcesStale])).toBe(EXIT.sourcesStale);
    expect(worstExitCode([EXIT.quarantined, EXIT.ok, EXIT.sourcesStale])).toBe(EXIT.sourcesStale);
    expect(worstExitCode([EXIT.workFailed, EXIT.ok, EXIT.sourcesStale])).toBe(EXIT.workFailed);
    expect(worstExitCode([EXIT.transformFailed, EXIT.interrupted])).toBe(EXIT.interrupted);
  });

  it("every exit code has a rank", () => {
    expect([...EXIT_SEVERITY].sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
  });
});
