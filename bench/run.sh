#!/usr/bin/env bash
# make bench (after make build and the tools it needs): the wrk throughput
# suite (bench/wrk-suite.ts), held responses beside go-httpbin (bench/held.ts),
# the limiter's cost (bench/limiter.ts), the front door, metrics, WebSockets,
# TLS, HTTP/2, then the infinite namespace (bench/infinite).
# BENCH_SKIP=wrk,held,scale,limiter,front-door,metrics,websocket,tls,http2 skips parts
# (held also knows slow, streams and drips; scale knows scale-chunks and scale-idle).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f dist/bench/wrk-suite.js ]]; then
  echo "bench: dist/bench/wrk-suite.js is missing; run 'make bench' (it builds first)" >&2
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

# Throughput: wrk on core 1, every server on core 0 (about 4 minutes).
if [[ "${BENCH_SKIP:-}" != *wrk* ]]; then
  node dist/bench/wrk-suite.js
fi

# Held responses: 2000 /slow at once and 5000 /drip streams, each beside go-httpbin (about 1 minute).
if [[ "${BENCH_SKIP:-}" != *held* ]]; then
  node dist/bench/held.js
fi

# Scale per replica: 20,000 drips and 50,000 idle keep-alive connections on one chaos process (about 1 minute).
# Each side holds a descriptor per socket; where the hard limit is lower, both sizes shrink to fit and the run says so.
if [[ "${BENCH_SKIP:-}" != *scale* ]]; then
  (
    drips="${BENCH_SCALE_DRIPS:-20000}"
    idle="${BENCH_SCALE_IDLE:-50000}"
    most=$((drips > idle ? drips : idle))
    if ! ulimit -n $((most + 1024)) 2>/dev/null; then
      hard="$(ulimit -Hn)"
      fit=$((hard - 1024))
      echo "bench: the open-files hard limit is $hard, below $((most + 1024)): the scale part runs with at most $fit sockets (raise LimitNOFILE / ulimit -Hn as root for the full sizes)" >&2
      ulimit -n "$hard"
      export BENCH_SCALE_DRIPS=$((drips < fit ? drips : fit)) BENCH_SCALE_IDLE=$((idle < fit ? idle : fit))
    fi
    node dist/bench/scale.js
  )
fi

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

# WebSockets: echo round trips and messages/s on one connection, RSS of WS_BENCH_IDLE (10,000) idle sockets,
# chaos's codec beside the ws twin and a minimal ws server (each side holds a descriptor per socket).
if [[ "${BENCH_SKIP:-}" != *websocket* ]]; then
  idle="${WS_BENCH_IDLE:-10000}"
  (ulimit -n $((idle + 1024)) 2>/dev/null || true; node dist/bench/websocket.js)
fi

# TLS: new connections/s and requests/s over kept connections on the good mode, beside a minimal node:https and nginx.
if [[ "${BENCH_SKIP:-}" != *tls* ]]; then
  node dist/bench/tls.js
fi

# HTTP/2: requests/s over one prior-knowledge connection (1, 10, 100 streams, h2load), chaos beside a minimal node:http2 and the control twin.
if [[ "${BENCH_SKIP:-}" != *http2* ]]; then
  node dist/bench/http2.js
fi

# The infinite namespace: generator pages/s on one core, RSS across 1,000,000 URLs, pages/s over HTTP.
bash bench/infinite/run.sh
