#!/usr/bin/env bash
# etcd's JSON gateway (driven by memstand's codec, bench/etcd_gateway_loop) against its
# native gRPC API (driven by etcdctl check perf, Go's gRPC client), on one local etcd:
# requests counted by the store revision (one put = one revision), server CPU from /proc,
# client CPU from getrusage / bash's `time`. Runs A-B-B-A so drift favours neither.
#   bench/etcd_gateway_vs_grpc.sh BUILD_DIR
# Needs etcd-server and etcd-client (etcdctl). Prints one line per run.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR}
dir=$(mktemp -d /tmp/etcd-bench-XXXXXX)
port=$(( 20000 + RANDOM % 20000 )); peer=$(( port + 1 ))
etcd --name bench --data-dir "$dir/data" --listen-client-urls "http://127.0.0.1:$port" \
  --advertise-client-urls "http://127.0.0.1:$port" --listen-peer-urls "http://127.0.0.1:$peer" \
  --initial-advertise-peer-urls "http://127.0.0.1:$peer" --initial-cluster "bench=http://127.0.0.1:$peer" \
  > "$dir/etcd.log" 2>&1 &
pid=$!
trap 'kill $pid; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
ep="127.0.0.1:$port"
for _ in $(seq 100); do curl -sf -X POST "http://$ep/v3/maintenance/status" -d '{}' >/dev/null && break; sleep 0.1; done

revision() { curl -s -X POST "http://$ep/v3/maintenance/status" -d '{}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])'; }
server_cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
tck=$(getconf CLK_TCK)

grpc() {  # $1: etcdctl load (s: 150 puts/s by 50 clients for 60 s; xl: 15000 by 1000)
  local r0 c0 t0 r1 c1 t1 out
  r0=$(revision); c0=$(server_cpu); t0=$(date +%s.%N)
  TIMEFORMAT='%U %S'
  { time etcdctl --endpoints="$ep" check perf --load="$1" > "$dir/perf.out" 2>&1 || true; } 2> "$dir/time.out"
  t1=$(date +%s.%N); r1=$(revision); c1=$(server_cpu)
  read -r u s < "$dir/time.out"
  python3 - "$1" "$r0" "$r1" "$c0" "$c1" "$t0" "$t1" "$u" "$s" "$tck" "$(grep -E 'Throughput' "$dir/perf.out" | head -1)" <<'PY'
import sys
load, r0, r1, c0, c1, t0, t1, u, s, tck, note = sys.argv[1:]
n = int(r1) - int(r0); wall = float(t1) - float(t0); srv = (float(c1) - float(c0)) / int(tck)
print(f"grpc    load={load} requests={n} wall={wall:.1f}s requests/s={n/wall:.0f} "
      f"client_cpu_us_per_request={(float(u)+float(s))*1e6/n:.1f} server_cpu_us_per_request={srv*1e6/n:.1f} ({note.strip()})")
PY
}

gateway() {  # $1 connections, $2 rate (0: closed loop), $3 seconds
  local r0 r1
  r0=$(revision)
  "$build/etcd_gateway_loop" --port "$port" --connections "$1" --rate "$2" --seconds "$3" \
    --op put --value-size 256 --server-pid "$pid" | tr '\n' ' '
  r1=$(revision)
  echo "(revisions: $(( r1 - r0 )))"
}

echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), etcd $(etcd --version | head -1)"
gateway 50 150 60
grpc s
grpc s
gateway 50 150 60
gateway 64 0 20
grpc xl
gateway 64 0 20
