#!/usr/bin/env bash
# Installs npm dependencies from the lockfile when node_modules is missing or older than the lockfile.
# `npm ci` installs exactly what package-lock.json names and never rewrites it, so a fresh clone stays
# clean. The lockfile lists every platform's optional binaries (esbuild, rollup, buf, nx), so it is
# complete on any OS; after adding a dependency, commit the lockfile `npm install` writes.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/nx ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies..."
  npm ci --no-audit --no-fund --loglevel=error
fi
