#!/usr/bin/env bash
# Installs npm dependencies from the lockfile when node_modules is missing or older than the lockfile.
# `npm install` rather than `npm ci`: registries that do not carry every platform's optional
# binaries (esbuild, rollup, buf for other OSes) leave those out of the lockfile, which `npm ci`
# treats as a lockfile out of sync.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/nx ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies..."
  npm install --no-audit --no-fund --loglevel=error
fi
