// Ends scripts/run-tests.sh: one plain line "tests: N passed, N failed, N skipped" from vitest's JSON
// report, then the slowest test files with their durations (from test/helpers/file-durations-reporter.ts).
// Exits 1 when the report holds no test at all. Usage: node scripts/test-summary.mjs REPORT DURATIONS [COUNT]
import { existsSync, readFileSync } from "node:fs";

const [reportFile, durationsFile, count = "10"] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportFile, "utf8"));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
if (durationsFile !== undefined && existsSync(durationsFile)) {
  const files = JSON.parse(readFileSync(durationsFile, "utf8")).sort((a, b) => b.ms - a.ms);
  const slowest = files.slice(0, Number(count));
  console.log(`slowest ${slowest.length} of ${files.length} test files (import, tests and hooks):`);
  for (const { file, ms, tests } of slowest) {
    console.log(`${(ms / 1000).toFixed(1).padStart(7)} s  ${file} (${tests} test${tests === 1 ? "" : "s"})`);
  }
}
if (report.numTotalTests === 0) process.exit(1);
