#!/usr/bin/env bash
# Checks "no heap allocation per request in steady state": counts malloc calls (valgrind
# memcheck's heap summary) in two runs that differ only in their request count, against
# the null server. Allocations per extra request should be 0.00.
# Usage: [IO=auto|uring|epoll] bench/check_allocations.sh [build-dir]   (needs valgrind;
# IO: memstand --io, default auto)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$build/null_resp_server" --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 0.3

allocs() {
  valgrind --tool=memcheck "$build/memstand" run --target "redis://127.0.0.1:$port" --io "${IO:-auto}" -c 20 \
    --pipeline "$2" -n "$1" --ratio 1:1 -d 100 --data-size-range 50-500 -q 2>&1 >/dev/null |
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
}

printf '%-10s %12s %12s %12s %18s\n' pipeline "allocs@20k" "allocs@200k" "extra" "allocs/extra req"
for p in 1 16; do
  a=$(allocs 20000 "$p")
  b=$(allocs 200000 "$p")
  printf '%-10s %12s %12s %12s %18.4f\n' "$p" "$a" "$b" "$((b - a))" "$(awk -v a="$a" -v b="$b" 'BEGIN{print (b-a)/180000}')"
done
