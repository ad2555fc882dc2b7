#!/usr/bin/env bash
# Infinite-content benchmark (bench/infinite/README.md): generator pages/s on
# one core, RSS across 1,000,000 distinct URLs, then pages/s over HTTP.
# Bounded: about 2 to 4 minutes (--quick: about 40 s). Run after `make build`
# (bench/run.sh and `make bench` build first).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ ! -f dist/bench/infinite/bench.js ]]; then
  echo "bench/infinite: dist/bench/infinite/bench.js is missing; run 'make build' first" >&2
  exit 1
fi

# One core for the generator rows: pinned when taskset exists.
pin=()
if command -v taskset >/dev/null 2>&1; then pin=(taskset -c 0); fi

"${pin[@]}" node --expose-gc dist/bench/infinite/bench.js gen "$@"
"${pin[@]}" node --expose-gc dist/bench/infinite/bench.js rss "$@"
node dist/bench/infinite/bench.js http "$@"
