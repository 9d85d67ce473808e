#!/usr/bin/env bash
# Runs the whole vitest suite (unit + integration: real Postgres, sandbox over HTTP, dbt) and ends
# with the runner's summary and one plain line "tests: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .make
results=.make/vitest-results.json
rm -f "$results"
npx vitest run --reporter=default --reporter=json --outputFile.json="$results"
status=$?
if [[ -f "$results" ]]; then
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
    if (r.numTotalTests === 0) process.exit(1);
  ' "$results" || status=1
fi
exit $status
