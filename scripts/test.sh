#!/usr/bin/env bash
# Installs what is missing, builds (Release, then ASan+UBSan) and runs every test with
# ctest. The tests start the redis-server instances they need themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The micro-benchmarks are not tests; building them would only lengthen the run.
dir=$(scripts/build.sh release-nobench | tail -n 1)
ctest --test-dir "$dir" --output-on-failure -j 2 --timeout 600
if [ "${MEMSTAND_SKIP_ASAN:-0}" != "1" ]; then
  dir=$(scripts/build.sh asan | tail -n 1)
  ctest --test-dir "$dir" --output-on-failure -j 2 --timeout 900
fi
