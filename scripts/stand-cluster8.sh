#!/usr/bin/env bash
# Stands up the 8-master Redis Cluster of the issue's benchmark (too slow for the test
# suite), checks it with redis-cli, and takes it down. Usage: scripts/stand-cluster8.sh
# [BUILD_DIR] (default: build). Extra checks of what the tests cover at 3 masters.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/memstand"
root=$(mktemp -d /tmp/memstand-cluster8-XXXXXX)
trap '"$bin" down --run-dir "$root" >/dev/null 2>&1 || true; rm -rf "$root"' EXIT
"$bin" up redis-cluster --name c8 --run-dir "$root"
port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][0]["port"])' \
       "$root/c8/state.json")
redis-cli -p "$port" cluster info | grep -E '^cluster_(state|slots_assigned|known_nodes|size):'
redis-cli -p "$port" cluster info | grep -q '^cluster_state:ok' || { echo "not ok" >&2; exit 1; }
redis-cli -p "$port" cluster info | grep -q '^cluster_size:8' || { echo "not 8 masters" >&2; exit 1; }
"$bin" ps --run-dir "$root"
"$bin" down c8 --run-dir "$root"
echo "8-master cluster: up, ok, down"
