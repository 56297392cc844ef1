#!/usr/bin/env bash
# The checks of deploy/ that need no cluster, container engine or network (deploy/README.md
# says what else was tried): yamllint with deploy/yamllint.yaml on the Kubernetes
# manifests, their structure against the typed models of Debian's python3-kubernetes
# (deploy/check_manifests.py: unknown fields, wrong types, missing required fields), and
# the launchers through shellcheck. Exit 1 on any fault, naming it.
#   scripts/check-deploy.sh [DIR]   (DIR: deploy/ or a copy of it; default deploy/)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-$repo/deploy}"
for p in yamllint shellcheck /usr/bin/python3; do
  command -v "$p" >/dev/null || { echo "check-deploy: $p is missing (scripts/deps.sh --test)" >&2; exit 2; }
done
/usr/bin/python3 -c 'import kubernetes' 2>/dev/null ||
  { echo "check-deploy: Debian's python3-kubernetes is missing (scripts/deps.sh --test)" >&2; exit 2; }
rc=0
yamllint -c "$repo/deploy/yamllint.yaml" "$dir"/k8s/*.yaml || rc=1
/usr/bin/python3 "$repo/deploy/check_manifests.py" "$dir"/k8s/*.yaml || rc=1
shellcheck "$dir/ssh-launch.sh" "$dir/k8s/run.sh" || rc=1
if [ "$rc" -eq 0 ]; then echo "check-deploy: $dir passes yamllint, check_manifests.py and shellcheck"; fi
exit "$rc"
