#!/usr/bin/env bash
# `npm test`: every check and every test of every project, end-to-end suites included
# (lint, typecheck, unit and integration tests, then the cross-service suites on built services).
set -euo pipefail
cd "$(dirname "$0")/.."
# Node 24 first on PATH for everything below (scripts/ensure-node.sh installs it when the machine's is older).
PATH="$(scripts/ensure-node.sh):$PATH"
export PATH
scripts/ensure-binaries.sh
scripts/ensure-node-modules.sh
exec npx nx run-many -t lint typecheck test --output-style=static "$@"
