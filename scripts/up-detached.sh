#!/usr/bin/env bash
# make up DETACH=1: the same stack as `make up`, in the background. The
# supervisor runs in a session of its own (no terminal's Ctrl-C or hangup
# reaches it), its output goes to $RUN_DIR/make-up.log, its PID to
# $RUN_DIR/make-up.pid; this script returns once the stack is up (the
# banner is printed) or says why it did not start. `make down` stops it.
set -uo pipefail
cd "$(dirname "$0")/.."
run_dir=${RUN_DIR:-.run}
pid_file=$run_dir/make-up.pid
log=$run_dir/make-up.log
mkdir -p "$run_dir"
if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
  echo "make up: a stack started with DETACH=1 already runs (pid $(cat "$pid_file"), log $log): make down stops it" >&2
  exit 1
fi
: >"$log"
# Not a process-group leader here, so setsid makes the session without forking: $! is the supervisor.
setsid node dist/services/main.js </dev/null >>"$log" 2>&1 &
pid=$!
echo "$pid" >"$pid_file"
deadline=$((SECONDS + 180))
until grep -q '^Ctrl-C stops' "$log"; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "make up: the stack did not start; the end of $log:" >&2
    tail -n 20 "$log" >&2
    rm -f "$pid_file"
    exit 1
  fi
  if ((SECONDS > deadline)); then
    echo "make up: the stack is not up after 180 s; stopping it (see $log)" >&2
    kill -TERM "$pid" 2>/dev/null
    rm -f "$pid_file"
    exit 1
  fi
  sleep 0.2
done
# The banner, without its Ctrl-C line: here `make down` stops the stack.
sed -n '/^Chaos Endpoint Service is up/,/^Ctrl-C stops/p' "$log" | grep -v '^Ctrl-C stops'
echo "Running in the background (pid $pid, output in $log): make down stops it, draining what is in flight."
