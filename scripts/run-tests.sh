#!/usr/bin/env bash
# Runs the whole vitest suite (unit + integration: real Postgres, sandbox over HTTP, dbt) and ends
# with the runner's summary, the 10 slowest test files with their durations (every file's in
# .make/vitest-file-durations.json), and one plain line "tests: N passed, N failed, N skipped".
# Arguments go to vitest (a filter, --project unit).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .make
results=.make/vitest-results.json
durations=.make/vitest-file-durations.json
rm -f "$results" "$durations"
FILE_DURATIONS_OUTPUT="$durations" npx vitest run --reporter=default --reporter=json --outputFile.json="$results" \
  --reporter=./test/helpers/file-durations-reporter.ts "$@"
status=$?
if [[ -f "$results" ]]; then
  node scripts/test-summary.mjs "$results" || status=1
fi
exit $status
