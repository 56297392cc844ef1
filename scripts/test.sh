#!/usr/bin/env bash
# Installs what is missing, builds and runs the tests with ctest: every test (unit and
# end-to-end) on the ASan+UBSan build, plus each fuzz target for 20 s. The tests start the
# servers they need themselves. Each phase prints its wall time on stderr.
#
# One build runs the tests: the ASan+UBSan one (RelWithDebInfo at -O1 -g1, see
# CMakeLists.txt). The Release build users run (scripts/main.sh's: -O3, LTO) is compiled
# too, its `memstand` target only (a warning, the link-time optimizer's included, fails
# it: scripts/build.sh), but runs no test: the tests assert counts and recorded values (never timing), which
# the sanitizer build checks as well and more (a use-after-free in a scenario's report
# was found that way). MEMSTAND_TEST_ALL_RELEASE=1 builds Release whole and runs every
# test on it too; MEMSTAND_SKIP_ASAN=1 then skips the sanitizer build.
#
# The long tests start first: tests/ctest_cost.txt (each test's time in the ASan+UBSan
# ctest run of a clean clone on 2026-12-05, the 208 tests of 2 s or more, and the history kill
# demo's, measured in the cold run of de966b4) seeds ctest's scheduler, which
# otherwise starts tests in declaration order (the longest, ScenarioE2E.MvccQuotaAtFullSize,
# once started 787th of 857).
#
# ctest runs 3 tests at once on this 2-core machine: at -j 2 the cores were 80% busy (the
# e2e tests wait on servers, on fsync, on timers), and the whole ctest took 562 s; at -j 3,
# 490 s with the cores 93% busy (2026-12-02, both runs passing every test; the -O1 -g1
# unity build's ctest has since taken 206 s at -j 3: README, "How long it takes"). The tests
# assert counts and recorded values, not times, so the extra load slows them but changes
# no outcome. MEMSTAND_TEST_JOBS sets it.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
phase() { echo "test.sh: $1 done at $(( $(date +%s) - start )) s" >&2; }
scripts/deps.sh --test
phase "set-up"
# deploy/: yamllint, the Kubernetes manifests against python3-kubernetes' models, shellcheck.
scripts/check-deploy.sh
phase "deploy/ checks"
skip_asan="${MEMSTAND_SKIP_ASAN:-0}"
all_release="${MEMSTAND_TEST_ALL_RELEASE:-0}"
jobs="${MEMSTAND_TEST_JOBS:-3}"
[ "$skip_asan" = "1" ] && all_release=1
# Seeds ctest's scheduler with the measured costs, unless this build dir has its own.
seed_costs() {
  mkdir -p "$1/Testing/Temporary"
  if [ -f tests/ctest_cost.txt ] && [ ! -f "$1/Testing/Temporary/CTestCostData.txt" ]; then
    cp tests/ctest_cost.txt "$1/Testing/Temporary/CTestCostData.txt"
  fi
}
# MEMSTAND_TEST_ALL_RELEASE=1: Release without LTO or micro-benchmarks, every test on it.
if [ "$all_release" = "1" ]; then
  dir=$(scripts/build.sh test | tail -n 1)
  phase "Release build"
  seed_costs "$dir"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 600
  phase "Release tests"
else
  # The build the main job makes (scripts/main.sh: Release, LTO, the binary and what
  # installing it brings), so its warnings, the link-time optimizer's included, fail here.
  scripts/build.sh release memstand memstand_docs >/dev/null
  phase "Release build (memstand only, as scripts/main.sh)"
fi
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
  seed_costs "$dir"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 900
  phase "ASan+UBSan tests (all)"
fi
