#!/usr/bin/env bash
# Installs what is missing, builds (Release, then ASan+UBSan) and runs the tests with
# ctest: the unit tests on the Release build, every test (unit and end-to-end) on the
# ASan+UBSan build, plus each fuzz target for 20 s. The tests start the servers they need
# themselves. Each phase prints its wall time on stderr.
#
# Why the end-to-end tests run once, under the sanitizers: they drive the same memstand
# binary with the same code at -O2 in both builds, assert counts and recorded values (never
# timing), and take most of the time (about 5 of the 6 minutes of a Release ctest here);
# under ASan+UBSan they also catch what Release cannot (a use-after-free in a scenario's
# report was found that way). MEMSTAND_TEST_ALL_RELEASE=1 runs them on Release too, and
# MEMSTAND_SKIP_ASAN=1 then skips the sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
phase() { echo "test.sh: $1 done at $(( $(date +%s) - start )) s" >&2; }
scripts/deps.sh --test
phase "set-up"
# deploy/: yamllint, the Kubernetes manifests against python3-kubernetes' models, shellcheck.
scripts/check-deploy.sh
phase "deploy/ checks"
# Release without LTO and without the micro-benchmarks (not tests): see scripts/build.sh.
dir=$(scripts/build.sh test | tail -n 1)
phase "Release build"
skip_asan="${MEMSTAND_SKIP_ASAN:-0}"
if [ "${MEMSTAND_TEST_ALL_RELEASE:-0}" = "1" ] || [ "$skip_asan" = "1" ]; then
  ctest --test-dir "$dir" --output-on-failure -j 2 --timeout 600
else
  # Unit tests only: every test whose suite is not an end-to-end one (*E2E).
  ctest --test-dir "$dir" --output-on-failure -j 2 --timeout 600 -E 'E2E[./]'
fi
phase "Release tests"
# Every libFuzzer target for a bounded time, from the seeds in fuzz/corpus (clang; only
# the codecs are built, in build-fuzz): a crash, a sanitizer report or a hang fails the
# run (docs/protocols.md, "Fuzzing"). MEMSTAND_FUZZ_SECONDS=0 skips it.
fuzz_seconds="${MEMSTAND_FUZZ_SECONDS:-20}"
if [ "$fuzz_seconds" != "0" ]; then
  scripts/fuzz.sh "$fuzz_seconds"
  phase "fuzzing"
fi
if [ "$skip_asan" != "1" ]; then
  dir=$(scripts/build.sh asan | tail -n 1)
  phase "ASan+UBSan build"
  ctest --test-dir "$dir" --output-on-failure -j 2 --timeout 900
  phase "ASan+UBSan tests (all)"
fi
