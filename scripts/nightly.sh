#!/usr/bin/env bash
# The nightly job (cron, systemd, Kubernetes): `telecom-etl nightly`, i.e. load, then rebuild the
# marts (also after a partial load, so BI sees what landed), then check source freshness. Exits
# with the worst of the three codes (see docs/reference/exit-codes.md); waits up to LOCK_TIMEOUT_SECONDS
# (default 600) for a run still holding a stream's lock. Extra arguments go to `nightly`.
# Environment: DATABASE_URL, each account's key, TELECOM_ETL_CONFIG, TELECOM_ETL_BI_READER_PASSWORD.
# Runs the clone's launcher (./telecom-etl: the node on PATH when it is 22.12+, else make's Node 22),
# so cron's and systemd's PATH, whose node may be older, do not matter.
set -uo pipefail
cd "$(dirname "$0")/.."
exec ./telecom-etl nightly --lock-timeout "${LOCK_TIMEOUT_SECONDS:-600}" "$@"
