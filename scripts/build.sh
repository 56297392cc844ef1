#!/usr/bin/env bash
# Configures and builds memstand. Usage: scripts/build.sh [release|release-nobench|test|asan|fuzz]
# [TARGET...] (default release, every target). `test`: Release without LTO and micro-benchmarks, in its own
# directory (the test job's build: LTO of the test binary takes minutes and changes no
# test's outcome; the `release` build users run keeps LTO).
# Prints the build directory on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-release}"
case "$kind" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  release-nobench) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release -DMEMSTAND_BUILD_BENCH=OFF) ;;
  test) dir=build-test; flags=(-DCMAKE_BUILD_TYPE=Release -DMEMSTAND_BUILD_BENCH=OFF -DMEMSTAND_LTO=OFF) ;;
  asan) dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMSTAND_SANITIZE=ON -DMEMSTAND_BUILD_BENCH=OFF) ;;
  # The libFuzzer targets (clang): scripts/fuzz.sh builds and runs them.
  fuzz) dir=build-fuzz; flags=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMSTAND_FUZZ=ON
                               -DMEMSTAND_BUILD_TESTS=OFF -DMEMSTAND_BUILD_BENCH=OFF) ;;
  *) echo "usage: $0 [release|release-nobench|test|asan|fuzz]" >&2; exit 2 ;;
esac
# ccache, where installed (scripts/deps.sh installs it): a rebuild of the same sources
# (the test job's second run, a developer's other worktree) compiles only what changed.
# Paths inside the checkout count relative to it, so another clone hits the same entries.
if command -v ccache >/dev/null 2>&1; then
  flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi
# uPlot (web/package.json), which the build inlines into memstand report's pages.
[ -f web/node_modules/uplot/package.json ] || scripts/npm-deps.sh
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
shift || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
# A warning fails the build: the sources compile with -Werror, but the link-time
# optimizer's warnings (lto1) and the linker's are printed at link time, where -Werror
# does not reach. The build's output is kept in $dir/build.log.
log="$dir/build.log"
rc=0
cmake --build "$dir" -j "$(nproc)" "${targets[@]}" 2>&1 | tee "$log" >&2 || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
if grep -qiE '(^|[^a-z])warning:' "$log"; then
  echo "build.sh: the build printed warnings (above; also in $log); memstand's build prints none" >&2
  exit 1
fi
echo "$dir"
