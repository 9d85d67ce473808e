#!/usr/bin/env bash
# Builds the loader image from the Dockerfile and runs it, where a Docker engine answers; elsewhere
# says it skipped. The image must start (`--version`), run as a non-root user, and ship neither the
# sandbox nor the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! docker info >/dev/null 2>&1; then
  echo "check-image: no Docker engine here; image build skipped"
  exit 0
fi
tag="telecom-etl:check-$$"
trap 'docker image rm -f "$tag" >/dev/null 2>&1 || true' EXIT
docker build --quiet -t "$tag" . >/dev/null
docker run --rm "$tag" --version
user=$(docker run --rm --entrypoint id "$tag" -un)
[ "$user" != "root" ] || { echo "check-image: the image runs as root" >&2; exit 1; }
if docker run --rm --entrypoint sh "$tag" -c 'test -e node_modules/@telecom-etl/sandbox || test -e dist/bench'; then
  echo "check-image: the image ships the sandbox or the benchmarks" >&2
  exit 1
fi
echo "check-image: the loader image builds, starts as $user, without sandbox or benchmarks"
