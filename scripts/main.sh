#!/usr/bin/env bash
# The main job: install what is missing, build, and run a benchmark against a local
# redis-server that memstand starts (and stops) itself. Extra arguments go to `run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The binary it runs, and what installing it brings (man page, completion): not the tests
# or the benchmarks, which scripts/test.sh and bench/ build.
dir=$(scripts/build.sh release memstand memstand_docs | tail -n 1)
exec "$dir/memstand" run "$@"
