#!/usr/bin/env bash
# Builds one app of the monorepo into a self-contained directory that runs with `node` alone:
#
#   deploy/docker/build-app.sh <app> <out-dir>
#
# <app> is a folder under apps/ or examples/ (api, orchestrator, memory, agent-pool, credential,
# trigger, tool-runner, mcp-bridge, llm-sim, travel-runner). The container image
# (deploy/docker/Dockerfile) runs exactly this script; it works the same on any checkout.
#
# Steps: `npm ci` (all dependencies, for the build), `nx build` of the app and the workspace
# libraries it depends on, then the output:
#   <out>/package.json, package-lock.json    the workspace root (npm workspaces)
#   <out>/libs/<lib>/{package.json,dist}     only the libraries the app depends on (from the Nx graph)
#   <out>/<apps|examples>/<app>/{package.json,dist,migrations?,scenarios?}
#   <out>/apps/console/dist                  the api only: the web console it serves under /console
#   <out>/app -> <apps|examples>/<app>       a fixed path for the image's command
#   <out>/node_modules                       production dependencies only (`npm ci --omit=dev`)
# Start it with: cd <out> && node --enable-source-maps --import @platform/telemetry/register app/dist/main.js
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <app> <out-dir>" >&2
  exit 64
fi
app="$1"
out="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

if [ -f "apps/$app/project.json" ]; then
  dir="apps/$app"
elif [ -f "examples/$app/project.json" ]; then
  dir="examples/$app"
else
  echo "build-app: no app '$app' under apps/ or examples/" >&2
  exit 64
fi
project="$(node -p "require('./$dir/project.json').name")"

echo "build-app: installing dependencies (npm ci)"
npm ci --no-audit --no-fund

# Static web apps an app serves from its image (built files only: no package, no dependencies).
web_apps=()
if [ "$project" = "api" ]; then web_apps=(apps/console); fi

echo "build-app: building $project and the libraries it uses"
npx nx run "$project:build" --output-style=static
for web in "${web_apps[@]}"; do
  npx nx run "$(node -p "require('./$web/project.json').name")":build --output-style=static
done

# The workspace libraries the app depends on, directly or not, from the Nx project graph.
graph="$(mktemp -d)/graph.json"
trap 'rm -rf "$(dirname "$graph")"' EXIT
NX_DAEMON=false npx nx graph --file="$graph" >/dev/null
mapfile -t libs < <(node -e '
  const { graph } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const seen = new Set();
  const visit = (name) => {
    for (const dep of graph.dependencies[name] ?? []) {
      if (!graph.nodes[dep.target] || seen.has(dep.target)) continue;
      seen.add(dep.target);
      visit(dep.target);
    }
  };
  visit(process.argv[2]);
  for (const name of seen) {
    const root = graph.nodes[name].data.root;
    // libs/testing is for tests only (lint forbids it in product code); the graph lists it through test files.
    if (root.startsWith("libs/") && root !== "libs/testing") console.log(root);
  }
' "$graph" "$project")

echo "build-app: assembling $out (${dir} + ${libs[*]})"
rm -rf "$out"
mkdir -p "$out"
cp package.json package-lock.json "$out/"
for workspace in "$dir" "${libs[@]}"; do
  mkdir -p "$out/$workspace"
  cp "$workspace/package.json" "$out/$workspace/"
  cp -R "$workspace/dist" "$out/$workspace/dist"
  rm -f "$out/$workspace/dist/.tsbuildinfo"
  # Files the code reads at run time next to dist/ (SQL migrations, llm-sim scenarios).
  for assets in migrations scenarios; do
    if [ -d "$workspace/$assets" ]; then cp -R "$workspace/$assets" "$out/$workspace/$assets"; fi
  done
done
for web in "${web_apps[@]}"; do
  mkdir -p "$out/$web"
  cp -R "$web/dist" "$out/$web/dist"
done
ln -s "$dir" "$out/app"

echo "build-app: installing production dependencies"
(cd "$out" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund)
echo "build-app: done: $out (start: node --import @platform/telemetry/register app/dist/main.js)"
