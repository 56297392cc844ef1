#!/usr/bin/env bash
# Installs what is missing, builds (Release, then ASan+UBSan) and runs every test with
# ctest, plus each fuzz target for 20 s. The tests start the redis-server instances they
# need themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
# Release without LTO and without the micro-benchmarks (not tests): see scripts/build.sh.
dir=$(scripts/build.sh test | tail -n 1)
ctest --test-dir "$dir" --output-on-failure -j 2 --timeout 600
# Every libFuzzer target for a bounded time, from the seeds in fuzz/corpus (clang; only
# the codecs are built, in build-fuzz): a crash, a sanitizer report or a hang fails the
# run (docs/protocols.md, "Fuzzing"). MEMSTAND_FUZZ_SECONDS=0 skips it.
fuzz_seconds="${MEMSTAND_FUZZ_SECONDS:-20}"
if [ "$fuzz_seconds" != "0" ]; then
  scripts/fuzz.sh "$fuzz_seconds"
fi
if [ "${MEMSTAND_SKIP_ASAN:-0}" != "1" ]; then
  dir=$(scripts/build.sh asan | tail -n 1)
  ctest --test-dir "$dir" --output-on-failure -j 2 --timeout 900
fi
