#!/bin/sh
# A plain launcher over ssh: one memstand shard per host, one --start-at, then merge.
#   deploy/ssh-launch.sh "host1 host2 host3" redis://10.0.0.1:6379 [LEAD_SECONDS] -- RUN_FLAGS...
# Each host needs memstand on its PATH and a clock kept by NTP/chrony (the start is
# a wall-clock second). Results come back as shard-K.json beside where it is run;
# the merged result is merged.json. Exit code: memstand merge's.
set -eu
hosts=${1:?usage: ssh-launch.sh "HOST..." TARGET [LEAD] -- RUN_FLAGS...}
target=${2:?target URL}
shift 2
lead=15
if [ "${1:-}" != "--" ] && [ $# -gt 0 ]; then lead=$1; shift; fi
[ "${1:-}" = "--" ] && shift
n=0
for h in $hosts; do n=$((n + 1)); done
start_at=$(( $(date +%s) + lead ))
k=0
pids=""
for h in $hosts; do
  # The run flags are passed as words; quote them for the remote shell yourself.
  ssh -o BatchMode=yes "$h" memstand run --target "$target" --shard "$k/$n" \
      --start-at "$start_at" --json "/tmp/memstand-shard-$k.json" -q "$@" \
      > "shard-$k.out" 2>&1 &
  pids="$pids $!"
  k=$((k + 1))
done
failed=0
for p in $pids; do wait "$p" || failed=$((failed + 1)); done
[ "$failed" -eq 0 ] || echo "ssh-launch: $failed of $n shards exited non-zero (see shard-*.out); merging what came back" >&2
k=0
files=""
for h in $hosts; do
  scp -q -o BatchMode=yes "$h:/tmp/memstand-shard-$k.json" "shard-$k.json" && files="$files shard-$k.json"
  k=$((k + 1))
done
# shellcheck disable=SC2086  # the file names hold no spaces
exec memstand merge $files -o merged.json
