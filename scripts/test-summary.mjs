// Ends scripts/run-tests.sh: one plain line "tests: N passed, N failed, N skipped" from vitest's JSON
// report (the slowest test files are listed just before it by test/helpers/file-durations-reporter.ts).
// Exits 1 when the report holds no test at all. Usage: node scripts/test-summary.mjs REPORT
import { readFileSync } from "node:fs";

const [reportFile] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportFile, "utf8"));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
if (report.numTotalTests === 0) process.exit(1);
