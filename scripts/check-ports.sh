#!/usr/bin/env bash
# Before `make up` builds anything: every public port the stack listens on
# must be free. When one is taken, say which, which variable moves it, and
# that another stack may be running, instead of failing after the build with
# a stack trace. The full stack listens on FRONT_PORT and FRONT_TLS_PORT only
# (its private ports are picked free at start); the embedded default on the
# three service ports, the TLS chaos port and control's TLS port.
set -uo pipefail
bind="${BIND_ADDRESS:-127.0.0.1}"
[ "$bind" = "0.0.0.0" ] || [ "$bind" = "::" ] && bind=127.0.0.1
stack="${STACK:-auto}"
if [ "$stack" = "auto" ]; then
  stack=embedded
  if command -v haproxy >/dev/null 2>&1 && { [ -n "${REDIS_URL:-}" ] || command -v redis-server >/dev/null 2>&1; }; then stack=full; fi
fi
# TLS chaos: on unless TLS_DIR is set empty (the Makefile's up target, docs/tls.md).
if [ "$stack" = "full" ]; then
  specs=("FRONT_PORT:${FRONT_PORT:-8080}")
  if [ "${TLS_DIR-unset}" != "" ]; then specs+=("FRONT_TLS_PORT:${FRONT_TLS_PORT:-8443}"); fi
else
  specs=("CHAOS_PORT:${CHAOS_PORT:-8081}" "CONTROL_PORT:${CONTROL_PORT:-8082}" "BOTS_PORT:${BOTS_PORT:-8083}")
  if [ "${TLS_DIR-unset}" != "" ]; then specs+=("CHAOS_TLS_PORT:${CHAOS_TLS_PORT:-8444}"); fi
  # Control's twins over TLS: on beside TLS chaos unless CONTROL_TLS_PORT is set empty (the Makefile's up target).
  if [ "${TLS_DIR-unset}" != "" ] && [ "${CONTROL_TLS_PORT-8445}" != "" ]; then specs+=("CONTROL_TLS_PORT:${CONTROL_TLS_PORT-8445}"); fi
fi
busy=0
for spec in "${specs[@]}"; do
  variable=${spec%%:*}
  port=${spec#*:}
  [ "$port" = "0" ] && continue
  # bash's /dev/tcp connects: it succeeds only when something listens there.
  if (exec 3<>"/dev/tcp/$bind/$port") 2>/dev/null; then
    echo "make up: port $port ($variable) on $bind is already in use — another stack (a second 'make up'?) may be running." >&2
    echo "         Stop it, or move this one: $variable=<free port> make up" >&2
    busy=1
  fi
done
exit "$busy"
