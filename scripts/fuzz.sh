#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build-fuzz and runs each for a
# bounded time: scripts/fuzz.sh [seconds per target, default 20] [target ...], as many
# at once as there are cores (MEMSTAND_FUZZ_JOBS to change). CI runs it (scripts/test.sh).
# Targets: resp memcache iproto http iproto_template pg tcp_segment (codecs; tcp_segment: the
# relay's segment tap, a packet and a stream's segment map), merge_input compare_input
# report_input hdr_decode history_reader topology_toml (the readers of files; half the seconds). Seeds come from fuzz/corpus/<name>/; new inputs
# go to build-fuzz/corpus/<name>/, crashes to build-fuzz/artifacts/. Exit status 1 if
# any target found a crash, a sanitizer report, a split-invariance violation or a hang.
# To reproduce a crash: build-fuzz/<name>_fuzz build-fuzz/artifacts/<file>.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(resp memcache iproto http iproto_template pg tcp_segment merge_input compare_input
                                      report_input hdr_decode history_reader topology_toml)
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: seconds must be a whole number, got '$seconds'" >&2; exit 2;; esac

# Built by scripts/build.sh (ccache, and a printed warning fails the build).
scripts/build.sh fuzz "${targets[@]/%/_fuzz}" >/dev/null

# The readers of files memstand wrote run for half the time (10 s of CI's 20), so that the
# five of them add ~25 s to the phase on two cores, not 50 (their build adds ~40-60 s).
reader_seconds=$(( (seconds + 1) / 2 ))
is_reader() { case "$1" in merge_input|compare_input|report_input|hdr_decode|history_reader|topology_toml) return 0;; esac; return 1; }

# One target: its exit status goes to build-fuzz/<name>.rc, its log to <name>.log.
run() {
  local t=$1 rc=0 time=$seconds
  is_reader "$t" && time=$reader_seconds
  mkdir -p "build-fuzz/corpus/$t"
  "build-fuzz/${t}_fuzz" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" \
    "build-fuzz/corpus/$t" "fuzz/corpus/$t" 2> "build-fuzz/$t.log" || rc=$?
  echo "$rc" > "build-fuzz/$t.rc"
}

# As many targets at once as there are cores (MEMSTAND_FUZZ_JOBS), each for `seconds`.
jobs_max="${MEMSTAND_FUZZ_JOBS:-$(nproc)}"
mkdir -p build-fuzz/artifacts
for t in "${targets[@]}"; do
  rm -f "build-fuzz/$t.rc"
  echo "fuzz: $t for $(is_reader "$t" && echo "$reader_seconds" || echo "$seconds")s" >&2
  run "$t" &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
done
wait
failed=()
for t in "${targets[@]}"; do
  if [ "$(cat "build-fuzz/$t.rc" 2>/dev/null)" != "0" ]; then
    failed+=("$t")
    echo "fuzz: $t FAILED:" >&2
    tail -n 40 "build-fuzz/$t.log" >&2
  fi
  echo "fuzz: $t: $(grep -E '^stat::number_of_executed_units' "build-fuzz/$t.log" | awk '{print $2}') inputs" >&2
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in build-fuzz/artifacts/; reproduce with build-fuzz/<name>_fuzz <file>)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each (readers ${reader_seconds}s), no failure" >&2
