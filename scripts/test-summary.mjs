// Ends scripts/run-tests.sh: each failed test on a line of its own (file, test, the first line of its
// error), then one plain line "tests: N passed, N failed, N skipped" from vitest's JSON report (the
// slowest test files are listed just before by test/helpers/file-durations-reporter.ts). A CI log is
// often read from its end only: the failures must be there, not only far above in the runner's output.
// Exits 1 when the report holds no test at all. Usage: node scripts/test-summary.mjs REPORT
import { readFileSync } from "node:fs";
import path from "node:path";

/** How many failed tests are listed, and how long each line may be. */
const FAILURES_SHOWN = 20;
const LINE_LIMIT = 300;

const [reportFile] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportFile, "utf8"));

/** One line per failed test (or failed file, when its suite failed before any test ran). */
function failureLines() {
  const lines = [];
  for (const file of report.testResults ?? []) {
    const where = path.relative(process.cwd(), file.name);
    const failed = (file.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failed) lines.push(`${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    if (failed.length === 0 && file.status === "failed") lines.push(`${where}: ${firstLine(file.message)}`);
  }
  return lines;
}

function firstLine(message) {
  const line = String(message ?? "").split("\n").find((text) => text.trim() !== "") ?? "(no message)";
  return line.length > LINE_LIMIT ? `${line.slice(0, LINE_LIMIT)}…` : line;
}

const failures = failureLines();
for (const line of failures.slice(0, FAILURES_SHOWN)) console.log(`failed: ${line}`);
if (failures.length > FAILURES_SHOWN) console.log(`failed: … and ${failures.length - FAILURES_SHOWN} more (${reportFile})`);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
if (report.numTotalTests === 0) process.exit(1);
