#!/usr/bin/env bash
# The nightly job (cron, systemd, Kubernetes): `telecom-etl nightly`, i.e. load, then rebuild the
# marts (also after a partial load, so BI sees what landed), then check source freshness. Exits
# with the worst of the three codes (see README, "Exit codes"); waits up to LOCK_TIMEOUT_SECONDS
# (default 600) for a run still holding a stream's lock. Extra arguments go to `nightly`.
# Environment: DATABASE_URL, each account's key, TELECOM_ETL_CONFIG, TELECOM_ETL_BI_READER_PASSWORD.
set -uo pipefail
cd "$(dirname "$0")/.."
exec node dist/src/cli/bin.js nightly --lock-timeout "${LOCK_TIMEOUT_SECONDS:-600}" "$@"
