#!/usr/bin/env bash
# Makes the pgvector extension (`CREATE EXTENSION vector`) available to the local PostgreSQL 15
# that tests and `npm run platform` use. In order:
#   1. already installed (vector.control in the server's extension folder): nothing to do;
#   2. the distribution packages it (`postgresql-15-pgvector`, e.g. from the PGDG apt repository): apt-get install;
#   3. the upstream source vendored in the repository (third_party/pgvector/pgvector-<v>.tar.gz, or
#      PGVECTOR_SOURCE=/path/to/pgvector.tar.gz): build it against postgresql-server-dev-15 and install;
#   4. otherwise: say why and what to do, and exit 1.
# Idempotent, and instant once installed. Installing needs root (or sudo).
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-15}"
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SOURCE="${PGVECTOR_SOURCE:-}"
if [ -z "$SOURCE" ]; then
  # The newest vendored release wins (sort -V orders 0.8.10 after 0.8.6).
  SOURCE="$(ls "$REPO_ROOT"/third_party/pgvector/pgvector-*.tar.gz 2>/dev/null | sort -V | tail -n 1 || true)"
fi

extension_dir() {
  if [ -x "$PG_BIN/pg_config" ]; then
    echo "$("$PG_BIN/pg_config" --sharedir)/extension"
  else
    echo "/usr/share/postgresql/${PG_MAJOR}/extension"
  fi
}

installed() { [ -f "$(extension_dir)/vector.control" ]; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "ensure-pgvector: needs root to run: $*" >&2
    return 1
  fi
}

# Another process (a parallel test run, another checkout) may hold the dpkg lock: wait for it.
apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 "$@"
}

package_known() { apt-cache show "$1" >/dev/null 2>&1; }

if installed; then exit 0; fi

if ! [ -x "$PG_BIN/postgres" ]; then
  echo "ensure-pgvector: PostgreSQL ${PG_MAJOR} is not installed in $PG_BIN (scripts/ensure-binaries.sh installs it first)" >&2
  exit 1
fi

package="postgresql-${PG_MAJOR}-pgvector"
if command -v apt-cache >/dev/null 2>&1 && ! package_known "$package" && ! package_known "postgresql-server-dev-${PG_MAJOR}"; then
  # Package lists were never fetched (a fresh image): fetch them once before deciding.
  as_root apt-get update -qq -o DPkg::Lock::Timeout=300 || true
fi
if command -v apt-cache >/dev/null 2>&1 && package_known "$package"; then
  echo "ensure-pgvector: installing $package from the distribution"
  apt_install "$package"
  installed && exit 0
  echo "ensure-pgvector: $package installed, but $(extension_dir)/vector.control is still missing" >&2
  exit 1
fi

if [ -n "$SOURCE" ] && [ -f "$SOURCE" ]; then
  echo "ensure-pgvector: no $package package here; building pgvector from $SOURCE"
  if ! [ -x "$PG_BIN/pg_config" ] || ! [ -d "$("$PG_BIN/pg_config" --includedir-server)" ]; then
    apt_install "postgresql-server-dev-${PG_MAJOR}"
  fi
  command -v make >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 || apt_install make gcc
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  tar -xzf "$SOURCE" -C "$work"
  src="$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
  # OPTFLAGS="" keeps the build portable (upstream defaults to -march=native).
  make -C "$src" -s -j"$(nproc)" PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS="" >/dev/null
  as_root make -C "$src" -s install PG_CONFIG="$PG_BIN/pg_config" >/dev/null
  installed && { echo "ensure-pgvector: pgvector installed into $(extension_dir)"; exit 0; }
  echo "ensure-pgvector: the build finished but $(extension_dir)/vector.control is missing" >&2
  exit 1
fi

cat >&2 <<MSG
ensure-pgvector: cannot make the pgvector extension available:
  - apt knows no '$package' package (add the PGDG apt repository, https://wiki.postgresql.org/wiki/Apt, or use a
    distribution that ships it), and
  - no pgvector source archive was found (looked for third_party/pgvector/pgvector-*.tar.gz in the repository;
    set PGVECTOR_SOURCE=/path/to/pgvector-<version>.tar.gz to build from another copy).
Without pgvector the memory service falls back to keyword + trigram recall, and tests of the vector path are skipped.
MSG
exit 1
