#!/usr/bin/env bash
# Installs the server binaries the platform and its tests run (nats-server, redis-server,
# PostgreSQL with the pgvector extension, and Chromium for the console's browser tests) when they are missing, and says when kubectl is missing.
# Needs root (or sudo) only if something is missing. PGVECTOR_OPTIONAL=1 goes on (with a warning) when pgvector cannot be installed.
set -euo pipefail

ensure_pgvector() {
  if "$(dirname "$0")/ensure-pgvector.sh"; then return 0; fi
  if [ "${PGVECTOR_OPTIONAL:-0}" = "1" ]; then
    echo "ensure-binaries: going on without pgvector (PGVECTOR_OPTIONAL=1)" >&2
    return 0
  fi
  echo "ensure-binaries: set PGVECTOR_OPTIONAL=1 to run without pgvector" >&2
  return 1
}

missing=()
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# test/console drives Debian's Chromium with playwright-core (no browser download).
[ -x /usr/bin/chromium ] || missing+=(chromium)
# deploy/k8s renders its overlays with `kubectl kustomize` (offline, kustomize v5: kubectl 1.27+).
# The machine images ship it; Debian's own kubernetes-client is far too old to install instead.
command -v kubectl >/dev/null 2>&1 || echo "ensure-binaries: kubectl (1.27+) is missing: the k8s-manifests tests need it" >&2
if ! command -v postgres >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  missing+=(postgresql)
fi
if [ ${#missing[@]} -eq 0 ]; then
  ensure_pgvector
  exit $?
fi

echo "Installing missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
elif command -v sudo >/dev/null 2>&1; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
else
  echo "Please install: ${missing[*]} (apt-get install -y ${missing[*]})" >&2
  exit 1
fi
ensure_pgvector
