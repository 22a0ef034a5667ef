#!/usr/bin/env bash
# `npm run platform`: installs what is needed, builds every service, starts the whole platform
# (private NATS, PostgreSQL and Redis unless NATS_URL/DATABASE_URL/REDIS_URL are set; llm-sim
# unless OPENAI_BASE_URL is set), runs a demo conversation and keeps serving (the API, and the web
# console at /console) until Ctrl+C.
set -euo pipefail
cd "$(dirname "$0")/.."
# Node 24 first on PATH for everything below (scripts/ensure-node.sh installs it when the machine's is older).
PATH="$(scripts/ensure-node.sh):$PATH"
export PATH
scripts/ensure-binaries.sh
scripts/ensure-node-modules.sh
echo "Building the services..."
mkdir -p tmp
npx nx run local-stack:build --output-style=static >tmp/build.log 2>&1 || { cat tmp/build.log; exit 1; }
exec node --enable-source-maps deploy/local/dist/main.js
