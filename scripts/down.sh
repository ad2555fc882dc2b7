#!/usr/bin/env bash
# make down: stops the stack `make up DETACH=1` started. SIGTERM to its
# supervisor does what Ctrl-C does in the foreground (HAProxy stops softly,
# replicas drain their in-flight responses, Redis last); this waits for it.
# If the drain outlasts DOWN_TIMEOUT seconds, a second SIGTERM kills at once.
set -uo pipefail
cd "$(dirname "$0")/.."
run_dir=${RUN_DIR:-.run}
pid_file=$run_dir/make-up.pid
log=$run_dir/make-up.log
timeout=${DOWN_TIMEOUT:-120}
if [ ! -f "$pid_file" ]; then
  echo "make down: nothing to stop: no stack was started with 'make up DETACH=1' (no $pid_file)"
  exit 0
fi
pid=$(cat "$pid_file")
# The PID must still be our supervisor: a PID the system gave to another process since is left alone.
if ! kill -0 "$pid" 2>/dev/null || ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'dist/services/main\.js'; then
  rm -f "$pid_file"
  echo "make down: nothing to stop: the stack started with 'make up DETACH=1' (pid $pid) no longer runs; its stale $pid_file is removed (its output: $log)"
  exit 0
fi
echo "make down: stopping the stack (pid $pid): in-flight responses drain first (SHUTDOWN_GRACE_MS), Redis last…"
kill -TERM "$pid"
start=$SECONDS
while kill -0 "$pid" 2>/dev/null; do
  if ((SECONDS - start > timeout)); then
    echo "make down: still draining after ${timeout} s; stopping at once" >&2
    kill -TERM "$pid" 2>/dev/null
    sleep 2
    break
  fi
  sleep 0.2
done
rm -f "$pid_file"
echo "make down: stopped after $((SECONDS - start)) s (its output: $log)"
