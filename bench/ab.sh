#!/usr/bin/env bash
# A quick paired A/B of one chaos path: this build's chaos beside another
# build's (BENCH_BEFORE_DIST, a dist/ directory), both on core 0, wrk on
# core 1, alternating rounds with the order swapped each round. Prints req/s
# and server CPU µs per request (utime + stime from /proc) per round. Both
# run as users run them: the per-IP limiter on (never refusing), metrics on,
# node flags on. BENCH_REDIS=1 puts both on a Redis store (a redis-server
# started on a free port, on core 0 too, each with its own key prefix) and adds
# redis-server's CPU per request to each line.
# BENCH_BEFORE_NODE=/path/to/node runs the "before" side on another Node.js
# (BENCH_BEFORE_DIST=dist BENCH_BEFORE_NODE=/usr/bin/node: this build on two runtimes).
# Usage (after make build): BENCH_BEFORE_DIST=/path/to/other/dist bash bench/ab.sh '/status/200' [rounds=6] [seconds=3]
set -euo pipefail
cd "$(dirname "$0")/.."
before="${BENCH_BEFORE_DIST:?set BENCH_BEFORE_DIST to the dist directory of another build}"
path="${1:-/status/200}"; rounds="${2:-6}"; seconds="${3:-3}"
command -v wrk >/dev/null || { echo "bench/ab.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
env=(LOG_LEVEL=warn RATE_LIMIT_GENERAL=1000000000 MAX_CONNECTIONS_PER_IP=256)
# Both with this build's node flags for chaos (shared/runtime/node-flags.ts), unless BENCH_NODE_FLAGS=off;
# BENCH_BEFORE_NODE_FLAGS=off leaves them out of the "before" side alone, so
# BENCH_BEFORE_DIST=dist BENCH_BEFORE_NODE_FLAGS=off measures what the flags do;
# any other value is the "before" side's flags instead (e.g. "--max-semi-space-size=8 --single-threaded-gc").
flags=()
if [[ "${BENCH_NODE_FLAGS:-}" != off ]]; then
  read -r -a flags <<<"$(node --input-type=module -e "const m = await import('./dist/shared/runtime/node-flags.js'); console.log(m.NODE_FLAGS.chaos.join(' '))")"
fi
before_flags=("${flags[@]}")
if [[ "${BENCH_BEFORE_NODE_FLAGS:-}" == off ]]; then
  before_flags=()
elif [[ -n "${BENCH_BEFORE_NODE_FLAGS:-}" ]]; then
  read -r -a before_flags <<<"$BENCH_BEFORE_NODE_FLAGS"
fi
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
wait_port() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; }
pb=$(free_port); pa=$(free_port); mb=$(free_port); ma=$(free_port)
redis_pid=""
before_store=(); after_store=()
if [[ "${BENCH_REDIS:-}" == 1 ]]; then
  command -v redis-server >/dev/null || { echo "bench/ab.sh: redis-server is missing (apt-get install redis-server)" >&2; exit 1; }
  pr=$(free_port)
  taskset -c 0 redis-server --bind 127.0.0.1 --port "$pr" --save '' --appendonly no >/dev/null 2>&1 &
  redis_pid=$!
  wait_port "$pr"
  before_store=(REDIS_URL="redis://127.0.0.1:$pr" REDIS_PREFIX=before:)
  after_store=(REDIS_URL="redis://127.0.0.1:$pr" REDIS_PREFIX=after:)
fi
env "${env[@]}" "${before_store[@]}" CHAOS_PORT="$pb" METRICS_PORT="$mb" taskset -c 0 "${BENCH_BEFORE_NODE:-node}" "${before_flags[@]}" "$before/services/chaos/main.js" >/dev/null 2>&1 &
before_pid=$!
env "${env[@]}" "${after_store[@]}" CHAOS_PORT="$pa" METRICS_PORT="$ma" taskset -c 0 node "${flags[@]}" dist/services/chaos/main.js >/dev/null 2>&1 &
after_pid=$!
trap 'kill $before_pid $after_pid $redis_pid 2>/dev/null || true' EXIT
echo "before: $("${BENCH_BEFORE_NODE:-node}" --version) ${before_flags[*]} $before; after: $(node --version) ${flags[*]} dist"
for port in "$pb" "$pa"; do
  wait_port "$port"
  taskset -c 1 wrk -t1 -c64 -d2s "http://127.0.0.1:$port$path" >/dev/null
done
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ticks_per_second=$(getconf CLK_TCK)
# CPU µs per request from a tick count and a request count.
micros_per_request() { awk -v t="$1" -v n="$2" -v hz="$ticks_per_second" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }'; }
for round in $(seq 1 "$rounds"); do
  order="before:$pb:$before_pid after:$pa:$after_pid"
  ((round % 2 == 0)) && order="after:$pa:$after_pid before:$pb:$before_pid"
  for entry in $order; do
    IFS=: read -r name port pid <<<"$entry"
    c0=$(cpu_ticks "$pid")
    [[ -n "$redis_pid" ]] && r0=$(cpu_ticks "$redis_pid")
    out=$(taskset -c 1 wrk -t1 -c64 -d"${seconds}s" "http://127.0.0.1:$port$path")
    c1=$(cpu_ticks "$pid")
    n=$(awk '/requests in/ {print $1}' <<<"$out")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    micros=$(micros_per_request $((c1 - c0)) "$n")
    if [[ -n "$redis_pid" ]]; then
      r1=$(cpu_ticks "$redis_pid")
      micros="$micros (+ redis-server $(micros_per_request $((r1 - r0)) "$n"))"
    fi
    echo "$name round $round: $rps req/s, $micros µs/req"
  done
done
