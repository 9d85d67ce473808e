#!/usr/bin/env bash
# The nightly job: load, then rebuild the marts (also after a partial load, so BI sees what landed).
# Exits with the load's code (0 ok, 1 some work failed, 2 config/credentials, 3 rows quarantined,
# 4 another run holds the lock), or 1 if the load was fine but the dbt build failed.
# Environment: DATABASE_URL, each account's key, TELECOM_ETL_CONFIG (see README).
set -uo pipefail
cd "$(dirname "$0")/.."
node dist/src/cli/bin.js run --lock-timeout "${LOCK_TIMEOUT_SECONDS:-600}"
load=$?
if [[ $load -eq 2 || $load -eq 4 ]]; then exit "$load"; fi
node dist/src/cli/bin.js transform || { [[ $load -eq 0 ]] && exit 1; }
exit "$load"
