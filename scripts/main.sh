#!/usr/bin/env bash
# The main job: install what is missing, build, and run a benchmark against a local
# redis-server that memstand starts (and stops) itself. Extra arguments go to `run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
dir=$(scripts/build.sh release | tail -n 1)
exec "$dir/memstand" run "$@"
