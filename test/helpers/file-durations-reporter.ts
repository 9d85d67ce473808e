import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule, Vitest } from "vitest/node";

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

/** How many of the slowest files the reporter lists at the end of a run. */
export const SLOWEST_FILES_SHOWN = 10;

/** Each module's duration: import, tests and hooks, its file fixtures' set-up and teardown included. */
export function fileDurations(testModules: ReadonlyArray<TestModule>): FileDuration[] {
  return testModules.map((module) => {
    const diagnostic = module.diagnostic();
    return {
      file: module.relativeModuleId,
      ms: Math.round(diagnostic.prepareDuration + diagnostic.collectDuration + diagnostic.duration),
      tests: [...module.children.allTests()].length,
    };
  });
}

/** The lines listing the `count` slowest of `files`, slowest first, under a heading line. */
export function slowestFilesLines(files: readonly FileDuration[], count = SLOWEST_FILES_SHOWN): string[] {
  const slowest = [...files].sort((a, b) => b.ms - a.ms).slice(0, count);
  return [
    `slowest ${slowest.length} of ${files.length} test files (import, tests and hooks):`,
    ...slowest.map(
      ({ file, ms, tests }) =>
        `${(ms / 1000).toFixed(1).padStart(7)} s  ${file} (${tests} test${tests === 1 ? "" : "s"})`,
    ),
  ];
}

/** A test that failed, then passed when run again (vitest's `retry`): listed at the end of a run. */
export interface FlakyTest {
  readonly file: string;
  readonly name: string;
  /** Runs that failed before the one that passed. */
  readonly retries: number;
}

/** The tests of `testModules` that passed only on a retry. */
export function flakyTests(testModules: ReadonlyArray<TestModule>): FlakyTest[] {
  return testModules.flatMap((module) =>
    [...module.children.allTests()].flatMap((test) => {
      const diagnostic = test.diagnostic();
      return diagnostic?.flaky
        ? [{ file: module.relativeModuleId, name: test.fullName, retries: diagnostic.retryCount }]
        : [];
    }),
  );
}

/**
 * One line per flaky test, so a run that passed only thanks to a retry says so at its end, where a CI
 * log is read (a flaky test is a bug to mend, in the test or in the product: decision 0114).
 */
export function flakyTestLines(tests: readonly FlakyTest[]): string[] {
  return tests.map(
    ({ file, name, retries }) =>
      `flaky: ${file} > ${name} (failed ${retries} time${retries === 1 ? "" : "s"}, then passed)`,
  );
}

/**
 * Ends every run (vitest.config.ts names it after the default reporter) with the 10 slowest test
 * files and every test that passed only on a retry, and writes each file's duration to a JSON array
 * (FILE_DURATIONS_OUTPUT, else {@link FILE_DURATIONS_FILE}). The JSON reporter's per-file times are only the span of the file's
 * tests. A default export too, because vitest loads a reporter named on its command line
 * (`--reporter=<path>`, as scripts/run-tests.sh does) by it.
 */
export class FileDurationsReporter implements Reporter {
  private log: (line: string) => void = (line) => console.log(line);

  onInit(vitest: Vitest): void {
    this.log = (line) => vitest.logger.log(line);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = fileDurations(testModules);
    const output = process.env.FILE_DURATIONS_OUTPUT ?? FILE_DURATIONS_FILE;
    mkdirSync(path.dirname(output), { recursive: true });
    writeFileSync(output, `${JSON.stringify(files, null, 1)}\n`);
    for (const line of slowestFilesLines(files)) this.log(line);
    for (const line of flakyTestLines(flakyTests(testModules))) this.log(line);
  }
}

export default FileDurationsReporter;
