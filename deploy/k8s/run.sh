#!/bin/sh
# Runs the Indexed Job example: deploy/k8s/run.sh TARGET_URL [SHARDS] [LEAD_SECONDS]
# START_AT is LEAD_SECONDS (default 60: enough for the pods to be scheduled and pull
# the image) from now; a shard that starts later says so and starts at the next second.
set -eu
target=${1:?usage: run.sh TARGET_URL [SHARDS] [LEAD_SECONDS]}
shards=${2:-3}
lead=${3:-60}
here=$(dirname "$0")
start_at=$(date -u -d "@$(( $(date +%s) + lead ))" +%Y-%m-%dT%H:%M:%SZ)
sed -e "s|value: \"2026-12-01T18:30:00Z\"|value: \"$start_at\"|" \
    -e "s|value: \"redis://redis.default.svc.cluster.local:6379\"|value: \"$target\"|" \
    -e "s|value: \"3\"|value: \"$shards\"|" \
    -e "s|completions: 3 |completions: $shards |" \
    -e "s|parallelism: 3 |parallelism: $shards |" \
    "$here/shards-job.yaml" | kubectl apply -f -
echo "memstand: $shards shards start their measured phase at $start_at"
kubectl wait --for=condition=complete --timeout=30m job/memstand-shards
kubectl apply -f "$here/merge-job.yaml"
kubectl wait --for=condition=complete --timeout=10m job/memstand-merge
kubectl logs job/memstand-merge
