#!/usr/bin/env bash
# Checks "no heap allocation per request in steady state": counts malloc calls (valgrind
# memcheck's heap summary) in two open-loop runs against the null server that last the
# same time and differ only in their request rate, so that what is allocated per second
# (the per-second statistics) cancels out. Allocations per extra request should be 0.00.
# Usage: [IO=auto|uring|epoll] bench/check_allocations.sh [build-dir]   (needs valgrind;
# IO: memstand --io, default auto)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$build/null_resp_server" --port "$port" >/dev/null 2>&1 &
server=$!
out=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$out"' EXIT
sleep 0.3

seconds=10
allocs() {  # rate pipeline -> "allocs requests"
  valgrind --tool=memcheck "$build/memstand" run --target "redis://127.0.0.1:$port" --io "${IO:-auto}" \
    -c 20 --pipeline "$2" --rate "$1" --duration "${seconds}s" --ratio 1:1 -d 100 \
    --data-size-range 50-500 -q --json "$out/run.json" 2>&1 >/dev/null |
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["ops"])' "$out/run.json"
}

printf '%-9s %-14s %-14s %13s %13s %17s\n' pipeline "rate low/high" "allocs" "requests" "extra allocs" "allocs/extra req"
for p in 1 16; do
  low=100; high=$((p == 1 ? 800 : 2000))
  read -r a na < <(allocs "$low" "$p" | paste -sd ' ')
  read -r b nb < <(allocs "$high" "$p" | paste -sd ' ')
  printf '%-9s %-14s %-14s %13s %13s %17.4f\n' "$p" "$low/$high" "$a/$b" "$na/$nb" "$((b - a))" \
    "$(awk -v a="$a" -v b="$b" -v na="$na" -v nb="$nb" 'BEGIN{print (b-a)/(nb-na)}')"
done
echo "($seconds s each under valgrind; memstand --io ${IO:-auto})"
