#!/usr/bin/env bash
# User-space instructions per request (valgrind callgrind: repeatable, unlike CPU time on
# a shared VM) of memstand and redis-benchmark against the null server, SET 100 B,
# 50 connections, pipeline 1, 16 and 128. Kernel work (system calls, TCP) is not counted:
# compare_peers.py measures the whole CPU cost.
# Usage: [IO=auto|uring|epoll] bench/count_peer_instructions.sh [build-dir]   (needs valgrind,
# redis-tools; IO: memstand --io, default auto)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
for tool in valgrind redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$build/null_resp_server" --port "$port" >/dev/null 2>&1 &
server=$!
out=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$out"' EXIT
sleep 0.3

instructions() {  # command... -> total instructions
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

printf '%-9s %9s %16s %16s %7s\n' pipeline requests "memstand/req" "redis-bench/req" ratio
for p in 1 16 128; do
  n=$((p == 1 ? 50000 : 400000))
  a=$(instructions "$build/memstand" run --target "redis://127.0.0.1:$port" --io "${IO:-auto}" -c 50 --pipeline "$p" \
      -n "$n" --command "set __key__ __data__" -d 100 --key-maximum 99999 -q)
  b=$(instructions redis-benchmark -p "$port" -c 50 -n "$n" -P "$p" -t set -d 100 -r 100000 -q)
  awk -v p="$p" -v n="$n" -v a="$a" -v b="$b" \
    'BEGIN { printf "%-9s %9d %16.0f %16.0f %7.2f\n", p, n, a / n, b / n, a / b }'
done
