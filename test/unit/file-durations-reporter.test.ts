import { describe, expect, it } from "vitest";
import {
  type FileDuration,
  flakyTestLines,
  SLOWEST_FILES_SHOWN,
  slowestFilesLines,
} from "../helpers/file-durations-reporter.js";

/** `n` files whose durations are a shuffled 1..n seconds, so the slowest are known without sorting here. */
function shuffledFiles(n: number): FileDuration[] {
  const order = Array.from({ length: n }, (_, i) => (i * 7) % n);
  return order.map((i) => ({ file: `test/f${i + 1}.test.ts`, ms: (i + 1) * 1000, tests: i + 1 }));
}

describe("the slowest files listed at the end of a run", () => {
  it("lists the 10 slowest of many, slowest first, each with its seconds and test count", () => {
    const lines = slowestFilesLines(shuffledFiles(23));
    expect(lines[0]).toBe("slowest 10 of 23 test files (import, tests and hooks):");
    expect(lines.slice(1).map((line) => line.trim().split(/\s+/)[2])).toEqual(
      Array.from({ length: SLOWEST_FILES_SHOWN }, (_, i) => `test/f${23 - i}.test.ts`),
    );
    expect(lines[1]).toBe("   23.0 s  test/f23.test.ts (23 tests)");
  });

  it("lists every file when there are fewer, and says test in the singular for one", () => {
    const lines = slowestFilesLines(shuffledFiles(3));
    expect(lines).toEqual([
      "slowest 3 of 3 test files (import, tests and hooks):",
      "    3.0 s  test/f3.test.ts (3 tests)",
      "    2.0 s  test/f2.test.ts (2 tests)",
      "    1.0 s  test/f1.test.ts (1 test)",
    ]);
  });
});

describe("the flaky tests listed at the end of a run", () => {
  it("names each test that passed only on a retry, with how often it failed first", () => {
    expect(
      flakyTestLines([
        { file: "test/integration/a.test.ts", name: "locks > a rival waits", retries: 1 },
        { file: "test/integration/b.test.ts", name: "publishes", retries: 2 },
      ]),
    ).toEqual([
      "flaky: test/integration/a.test.ts > locks > a rival waits (failed 1 time, then passed)",
      "flaky: test/integration/b.test.ts > publishes (failed 2 times, then passed)",
    ]);
  });
});
