#!/bin/sh
# A plain launcher over ssh: one memstand shard per host, one --start-at, then merge.
#   deploy/ssh-launch.sh "host1 host2 host3" redis://10.0.0.1:6379 [LEAD_SECONDS] -- RUN_FLAGS...
# Each host needs memstand and a clock kept by NTP/chrony (the start is a wall-clock
# second). Results come back as shard-K.json (each shard's output as shard-K.out) in
# the current directory; the merged result is merged.json. Exit code: memstand merge's.
# A host may appear more than once (two shards on one host).
#
# Environment (all optional):
#   SSH_CONFIG=FILE     passed as `-F FILE` to ssh and scp (Host aliases, Port,
#                       IdentityFile, UserKnownHostsFile, ...; a path without
#                       spaces); else ssh's own ~/.ssh/config
#   MEMSTAND_REMOTE=CMD memstand on the hosts (default: memstand, from the remote PATH)
#   MEMSTAND=CMD        memstand here, for the merge (default: memstand)
#   REMOTE_DIR=DIR      where the shards write their JSON on the hosts (default /tmp);
#                       each file is removed there once copied back
#   FLEET_CHECK=GRACE   shard 0 also gets --fleet-check GRACE (docs/scale-out.md)
set -eu
usage='usage: ssh-launch.sh "HOST..." TARGET [LEAD_SECONDS] -- RUN_FLAGS...'
hosts=${1:?$usage}
target=${2:?$usage}
shift 2
lead=15
if [ "${1:-}" != "--" ] && [ $# -gt 0 ]; then lead=$1; shift; fi
case $lead in
  ''|*[!0-9]*) echo "ssh-launch: LEAD_SECONDS must be a whole number of seconds, got '$lead'" >&2; exit 2 ;;
esac
[ "${1:-}" = "--" ] && shift
remote=${MEMSTAND_REMOTE:-memstand}
local_memstand=${MEMSTAND:-memstand}
remote_dir=${REMOTE_DIR:-/tmp}
ssh_opts="-o BatchMode=yes"
if [ -n "${SSH_CONFIG:-}" ]; then
  if [ ! -f "$SSH_CONFIG" ] || [ ! -r "$SSH_CONFIG" ]; then
    echo "ssh-launch: SSH_CONFIG '$SSH_CONFIG' is not a readable file" >&2
    exit 2
  fi
  ssh_opts="-F $SSH_CONFIG $ssh_opts"
fi
n=0
for h in $hosts; do n=$((n + 1)); done
start_at=$(( $(date +%s) + lead ))
k=0
pids=""
for h in $hosts; do
  fleet=""
  [ "$k" -eq 0 ] && [ -n "${FLEET_CHECK:-}" ] && fleet="--fleet-check $FLEET_CHECK"
  # The run flags are passed as words; quote them for the remote shell yourself.
  # shellcheck disable=SC2086  # ssh_opts and fleet are words on purpose
  ssh $ssh_opts "$h" "$remote" run --target "$target" --shard "$k/$n" \
      --start-at "$start_at" --json "$remote_dir/memstand-$start_at-shard-$k.json" -q $fleet "$@" \
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
  f="$remote_dir/memstand-$start_at-shard-$k.json"
  # shellcheck disable=SC2086
  if scp -q $ssh_opts "$h:$f" "shard-$k.json"; then
    files="$files shard-$k.json"
    # shellcheck disable=SC2086
    ssh $ssh_opts "$h" rm -f "$f" || true
  fi
  k=$((k + 1))
done
if [ -z "$files" ]; then
  echo "ssh-launch: no shard's JSON came back (see shard-*.out)" >&2
  exit 1
fi
# shellcheck disable=SC2086  # the file names hold no spaces
exec $local_memstand merge $files -o merged.json
