/**
 * `make lint`'s function-length check fails on a function over 80 lines (naming it and where it
 * is) and passes the loader as it is.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = path.resolve("scripts/check-function-length.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "function-length-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(...targets: string[]) {
  return spawnSync(process.execPath, [SCRIPT, ...targets], { encoding: "utf8" });
}

/** A TypeScript file whose one function is `bodyLines` + 4 lines long (signature, two statements, closing brace). */
function fileWith(name: string, bodyLines: number): string {
  const file = path.join(dir, name);
  const body = Array.from({ length: bodyLines }, (_, i) => `  total += ${i};`).join("\n");
  writeFileSync(
    file,
    `export function long${bodyLines}(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`,
  );
  return file;
}

/**
 * Each test spawns node on the script, and the last one parses the whole loader: a few seconds on
 * two cores that other work keeps busy, more than vitest's default 5 s.
 */
const SPAWN = { timeout: 30_000 };

describe("function length check", () => {
  it("fails on a function over 80 lines, naming it and its line", SPAWN, () => {
    const result = check(fileWith("too-long.ts", 77));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("too-long.ts:1 long77: 81 lines (limit 80): split it into named steps");
  });

  it("passes a function of 80 lines", SPAWN, () => {
    expect(check(fileWith("just-fits.ts", 76)).status).toBe(0);
  });

  it("passes the loader's sources (src without the sandbox)", SPAWN, () => {
    const result = check();
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});
