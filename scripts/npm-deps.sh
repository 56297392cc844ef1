#!/usr/bin/env bash
# Installs the npm packages the build inlines into memstand report's pages (web/package.json:
# uPlot) into web/node_modules, exactly as web/package-lock.json pins them (`npm ci`).
# Idempotent: does nothing when the pinned version is installed. Run by scripts/deps.sh
# and, when web/node_modules lacks it, by scripts/build.sh. Needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/../web"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "memstand: node and npm are needed to install uPlot (web/package.json): run scripts/deps.sh" >&2
  exit 1
fi
want=$(node -p 'require("./package.json").dependencies.uplot')
have=$(node -p 'try { require("./node_modules/uplot/package.json").version } catch (e) { "" }')
if [ "$have" = "$want" ]; then
  exit 0
fi
echo "memstand: installing uplot@$want into web/node_modules (npm ci)" >&2
npm ci --no-audit --no-fund --loglevel=error >&2
