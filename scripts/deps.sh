#!/usr/bin/env bash
# Installs what memstand needs to build and run, from Debian 12 packages; with --test
# also what only the tests use (scripts/test.sh passes it): clang for the fuzz targets,
# prometheus (promtool and the server the metrics tests scrape with), HdrHistogram's Java
# reader, and chromium, which opens memstand report's pages headless (about 120 MB to
# download, 30 s to install here). Idempotent: does nothing when every package is
# present. Needs root (or sudo).
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ccache help2man
  libcli11-dev libfmt-dev nlohmann-json3-dev libzstd-dev zlib1g-dev libtomlplusplus-dev
  liburing-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libmsgpuck-dev libssl-dev
  redis-server redis-tools redis-sentinel
  memcached tarantool etcd-server
  postgresql libpq-dev
)
if [ "${1:-}" = "--test" ]; then
  # openssl: the TLS e2e test makes its CA and certificates with the openssl CLI.
  # openssh-server: SshLaunchE2E runs deploy/ssh-launch.sh through a private sshd of its
  # own (installing the package may also start the system's sshd where services start);
  # yamllint, python3-kubernetes, shellcheck: scripts/check-deploy.sh.
  PACKAGES+=(clang libclang-rt-dev prometheus libhdrhistogram-java default-jre-headless chromium openssl
             openssh-server openssh-client yamllint python3-kubernetes python3-yaml shellcheck)
fi
# Node.js and npm (the HdrHistogram log test decodes with npm's hdr-histogram-js): only
# when missing, since a machine may carry a nodejs package that bundles npm.
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "memstand: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# uPlot from npm, inlined into memstand report's pages at build time (web/package.json).
"$(dirname "$0")/npm-deps.sh"
