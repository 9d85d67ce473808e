#!/usr/bin/env bash
# Smoke test of the built CLI under $NODE_BIN (default: node): help, a usage error's exit code,
# a migrate on a fresh embedded warehouse, a second migrate as a no-op, and no postgres left behind.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_BIN=${NODE_BIN:-node}
CLI="$PWD/dist/src/cli/bin.js"
work=$(mktemp -d)
chmod 755 "$work"   # as root the embedded server runs as user postgres, which must reach it
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "cli smoke under $("$NODE_BIN" --version)"
"$NODE_BIN" "$CLI" --help >/dev/null
set +e; "$NODE_BIN" "$CLI" --no-such-flag 2>/dev/null; code=$?; set -e
[[ $code == 2 ]] || { echo "unknown flag exited $code, expected 2"; exit 1; }
"$NODE_BIN" "$CLI" --log-level warn migrate | grep -q "applied"
"$NODE_BIN" "$CLI" --log-level warn migrate | grep -q "up to date"
if pgrep -f "postgres -D $work" >/dev/null; then echo "a postgres process was left behind"; exit 1; fi
echo "cli smoke ok"
