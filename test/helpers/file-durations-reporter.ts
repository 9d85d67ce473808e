import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** One test file's time in a run, as {@link FileDurationsReporter} writes it. */
export interface FileDuration {
  /** The file, relative to the project's root. */
  readonly file: string;
  /** Milliseconds from the start of its import to the end of its last test or hook. */
  readonly ms: number;
  readonly tests: number;
}

/** Where the reporter writes, unless FILE_DURATIONS_OUTPUT names another file. */
export const FILE_DURATIONS_FILE = ".make/vitest-file-durations.json";

/**
 * Writes each test file's duration (import, tests and hooks, its file fixtures' set-up and teardown
 * included) to a JSON array, for scripts/run-tests.sh to list the slowest. The JSON reporter's
 * per-file times are only the span of the file's tests. A default export because vitest loads a
 * reporter named on its command line (`--reporter=<path>`) by it.
 */
export default class FileDurationsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files: FileDuration[] = testModules.map((module) => {
      const diagnostic = module.diagnostic();
      return {
        file: module.relativeModuleId,
        ms: Math.round(diagnostic.prepareDuration + diagnostic.collectDuration + diagnostic.duration),
        tests: [...module.children.allTests()].length,
      };
    });
    const output = process.env.FILE_DURATIONS_OUTPUT ?? FILE_DURATIONS_FILE;
    mkdirSync(path.dirname(output), { recursive: true });
    writeFileSync(output, `${JSON.stringify(files, null, 1)}\n`);
  }
}
