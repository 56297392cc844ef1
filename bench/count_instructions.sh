#!/usr/bin/env bash
# User-space instructions per request of `memstand run` (valgrind callgrind: repeatable,
# unlike CPU time on a shared VM), for each protocol path of the engine, against local
# servers this script starts on loopback ports and stops on exit:
#   resp-p1   redis-server, SET 100 B, pipeline 1
#   resp-p16  redis-server, SET 100 B, pipeline 16
#   memcache  memcached, set 100 B, pipeline 1
#   iproto    tarantool, replace 100 B, pipeline 1
# One thread and one connection (-t 1 -c 1), --io epoll, so a wake-up reads the same
# replies on every run. Counted: the load thread's instructions (callgrind
# --separate-threads), libc's system call wrappers included, but not the statistics'
# roll per second and at the end (see instructions() below); the main thread (flags, control
# connections, report) is not counted: its work does not grow with the requests, and
# the report's depends on the latencies' spread. Start-up is taken out: each row runs N
# and 3N requests and divides the difference by the difference in requests (2N).
# Kernel work (system calls, TCP) is not counted: compare_peers.py measures the whole
# CPU cost.
#
# Usage: bench/count_instructions.sh MEMSTAND [MEMSTAND2 ...]
#   MEMSTAND: a `memstand` binary (a Release build: scripts/build.sh release memstand).
#   With several, one column each, in the order given (e.g. before and after a change).
# Environment: N (requests of the short run; default 20000), IO (epoll|uring, default epoll),
#   EXCLUDE (roll|publish, default roll: what of the statistics' roll is left out, below;
#   publish gives the figures this script gave before it left out the whole roll),
#   EXTRA (more flags for every run; HIST in them names a file in the script's own
#   directory, e.g. EXTRA="--history HIST": then the history's writer thread is counted
#   with the load thread, so the figure is the whole cost of the history), ROWS (the rows
#   to run, e.g. ROWS="resp-p1 resp-p16"; default all four).
# Needs valgrind, redis-server, memcached, tarantool, python3.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 MEMSTAND [MEMSTAND2 ...]" >&2; exit 2; }
for b in "$@"; do
  [ -x "$b" ] || { echo "$b: not an executable" >&2; exit 2; }
done
for tool in valgrind callgrind_annotate redis-server memcached tarantool python3; do
  command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }
done
n="${N:-20000}"
io="${IO:-epoll}"
exclude="${EXCLUDE:-roll}"
case "$exclude" in roll|publish) ;; *) echo "EXCLUDE: roll or publish" >&2; exit 2 ;; esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/count-instructions.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_port() {  # port name: until a TCP connect succeeds (10 s at most)
  for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$2 did not listen on port $1 (log: $dir)" >&2
  exit 1
}

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" \
  --daemonize no >"$dir/redis.log" 2>&1 &
pids+=($!)
memcached_port=$(free_port)
memcached_user=()
[ "$(id -u)" = 0 ] && memcached_user=(-u root)
memcached -p "$memcached_port" -l 127.0.0.1 -U 0 -m 64 "${memcached_user[@]}" >"$dir/memcached.log" 2>&1 &
pids+=($!)
tarantool_port=$(free_port)
mkdir -p "$dir/tarantool"
cat >"$dir/tarantool/init.lua" <<EOF
box.cfg{work_dir = '$dir/tarantool', memtx_memory = 128 * 1024 * 1024, wal_mode = 'none', log_level = 4}
box.schema.user.grant('guest', 'read,write,execute', 'universe', nil, {if_not_exists = true})
local s = box.schema.space.create('memstand', {if_not_exists = true})
s:create_index('primary', {type = 'hash', parts = {1, 'string'}, if_not_exists = true})
box.cfg{listen = '127.0.0.1:$tarantool_port'}
EOF
tarantool "$dir/tarantool/init.lua" >"$dir/tarantool.log" 2>&1 &
pids+=($!)
wait_port "$redis_port" redis-server
wait_port "$memcached_port" memcached
wait_port "$tarantool_port" tarantool

# The rows, and memstand's flags for each (after `run`, before -n).
rows=(${ROWS:-resp-p1 resp-p16 memcache iproto})
row_args() {  # row -> ARGS
  ARGS=(-t 1 -c 1 --io "$io" -d 100 --key-maximum 99999 -q)
  case "$1" in
    resp-p1) ARGS+=(--target "redis://127.0.0.1:$redis_port" --pipeline 1 --command "set __key__ __data__") ;;
    resp-p16) ARGS+=(--target "redis://127.0.0.1:$redis_port" --pipeline 16 --command "set __key__ __data__") ;;
    memcache) ARGS+=(--target "memcache://127.0.0.1:$memcached_port" --command "set __key__ __data__") ;;
    iproto) ARGS+=(--target "tarantool://127.0.0.1:$tarantool_port" --command "replace memstand [__key__, __data__]") ;;
  esac
  local extra
  for extra in ${EXTRA:-}; do ARGS+=("${extra//HIST/$dir/run.hist}"); done
}

# binary requests row -> instructions of the load thread: every instruction it ran (its
# connections' set-up, the loop, the drain) but those of the statistics' roll, whose
# count follows the run's wall time under valgrind (a few seconds, varying with the
# machine's load) and the latencies' spread rather than its requests: each second's
# (WorkerBase::RollInterval, called from the loop: the second folded into the totals and
# summarized by IntervalCollector::Publish) and the end of the measured phase's
# (WorkerBase::FinishMeasuredPhase, once per run: the last second's, the CPU times).
# Leaving out Publish alone, as this script did until 2026-12-02 (EXCLUDE=publish gives
# those figures), left ~0.3 M instructions a roll in (HdrHistogram Add and Reset) and the
# last second's summary, which moved a row by up to ~9 per request from run to run at
# N = 20000 (RESP pipeline 1). Where the compiler put RollInterval in line in the loop,
# Publish only is left out.
instructions() {
  row_args "$3"
  rm -f "$dir"/cg.out* "$dir/run.hist"
  if ! valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.out" \
      "$1" run "${ARGS[@]}" -n "$2" >"$dir/run.out" 2>"$dir/valgrind.log"; then
    echo "memstand failed: $1 run ${ARGS[*]} -n $2" >&2
    tail -20 "$dir/run.out" "$dir/valgrind.log" >&2
    exit 1
  fi
  local f found=0 sum=0 count
  for f in "$dir"/cg.out-*; do
    callgrind_annotate --inclusive=yes --threshold=100 "$f" >"$f.txt" 2>/dev/null
    if grep -qE 'memstand::HistoryLog::WriterLoop\(\)' "$f.txt"; then  # EXTRA="--history HIST"
      count=$(awk 'function n(s) { gsub(",", "", s); return s + 0 }
                   /PROGRAM TOTALS/ { print n($1) }' "$f.txt")
      sum=$((sum + count))
      continue
    fi
    grep -qE 'memstand::Worker(<[^>]*>)?::Run\(\)' "$f.txt" || continue
    found=1
    count=$(awk -v exclude="$exclude" '
      function n(s) { gsub(",", "", s); return s + 0 }
      /PROGRAM TOTALS/ { total = n($1) }
      /memstand::IntervalCollector::Publish\(/ { publish += n($1) }
      /memstand::WorkerBase::RollInterval\(/ { roll += n($1) }
      /memstand::WorkerBase::FinishMeasuredPhase\(/ { finish += n($1) }
      END {
        if (total == 0) exit 1
        left_out = (exclude == "publish" || roll == 0) ? publish : roll + finish
        printf "%d\n", total - left_out
      }' "$f.txt")
    sum=$((sum + count))
  done
  [ "$found" = 1 ] || { echo "no load thread in the profile of $1" >&2; exit 1; }
  echo "$sum"
}

i=0
for b in "$@"; do
  i=$((i + 1))
  echo "#$i: $b"
done
echo "instructions per request of the load thread (N = $n and $((3 * n)) requests, --io $io)"
printf '%-9s' row
i=0
for b in "$@"; do
  i=$((i + 1))
  printf ' %9s' "#$i"
done
printf '\n'
for row in "${rows[@]}"; do
  printf '%-9s' "$row"
  for b in "$@"; do
    a=$(instructions "$b" "$n" "$row")
    c=$(instructions "$b" $((3 * n)) "$row")
    awk -v a="$a" -v c="$c" -v n="$n" 'BEGIN { printf " %9.1f", (c - a) / (2 * n) }'
  done
  printf '\n'
done
