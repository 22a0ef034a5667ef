#!/usr/bin/env bash
# Installs npm dependencies from the lockfile when node_modules is missing or older than the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/nx ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies (npm ci)..."
  npm ci --no-audit --no-fund --loglevel=error
fi
