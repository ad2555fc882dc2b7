#!/usr/bin/env bash
# make bench (after make build): throughput beside a minimal node:net server,
# thousands of /drip streams at once, then the infinite namespace
# (bench/infinite), and the limiter's cost (bench/limiter.ts). Bounded: about
# 5 to 7 minutes. BENCH_SKIP=limiter skips the limiter part.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f dist/bench/main.js ]]; then
  echo "bench: dist/bench/main.js is missing; run 'make bench' (it builds first)" >&2
  exit 1
fi

# Each side of the streams benchmark holds one descriptor per stream (plus a few):
# the server and the client are separate processes, so each needs BENCH_STREAMS + margin.
streams="${BENCH_STREAMS:-5000}"
need=$((streams + 512))
if (($(ulimit -n) < need)); then
  if ! ulimit -n "$need" 2>/dev/null; then
    hard="$(ulimit -Hn)"
    echo "bench: cannot raise the open-files limit to $need (soft $(ulimit -n), hard $hard)." >&2
    echo "bench: raise it (e.g. 'ulimit -n $need' as root, or LimitNOFILE) or run with BENCH_STREAMS=$((hard - 512))." >&2
    exit 1
  fi
fi
echo "bench: open-files limit $(ulimit -n)" >&2

node dist/bench/main.js

# The per-IP limiter: off vs in-memory vs Redis (starts its own redis-server), about 70 s.
if [[ "${BENCH_SKIP:-}" != *limiter* ]]; then
  if command -v redis-server >/dev/null 2>&1; then
    node dist/bench/limiter.js
  else
    echo "bench: redis-server is not installed (apt-get install redis-server): limiter benchmark skipped" >&2
  fi
fi

# The front door: direct vs through HAProxy, and held streams through it (HAProxy holds two descriptors per stream).
if [[ "${BENCH_SKIP:-}" != *front-door* ]]; then
  if command -v haproxy >/dev/null 2>&1 && command -v redis-server >/dev/null 2>&1 && command -v wrk >/dev/null 2>&1; then
    (ulimit -n $((2 * streams + 1024)) 2>/dev/null || true; node dist/bench/front-door.js)
  else
    echo "bench: haproxy, redis-server and wrk are needed for the front-door benchmark (apt-get install haproxy redis-server wrk): skipped" >&2
  fi
fi

# The cost of metrics: a chaos process with its admin port on vs off (needs wrk).
if [[ "${BENCH_SKIP:-}" != *metrics* ]] && command -v wrk >/dev/null 2>&1; then
  node dist/bench/metrics.js
fi

# The infinite namespace: generator pages/s on one core, RSS across 1,000,000 URLs, pages/s over HTTP.
bash bench/infinite/run.sh
