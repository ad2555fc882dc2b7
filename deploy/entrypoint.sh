#!/bin/sh
# Starts one service of the image: SERVICE, or the first argument, names it.
set -eu
SERVICE="${1:-${SERVICE:-}}"
case "$SERVICE" in
  chaos|control|bots) ;;
  *)
    echo "chaos-entrypoint: SERVICE must be chaos, control or bots (got '${SERVICE}')" >&2
    exit 64
    ;;
esac
# The V8 flags each service is tuned for: shared/runtime/node-flags.ts says why, and
# tests/integration/image-layout.test.ts keeps this list equal to it.
case "$SERVICE" in
  chaos) NODE_FLAGS="--max-semi-space-size=2 --single-threaded-gc" ;;
  *) NODE_FLAGS="" ;;
esac
# A descriptor per connection: the soft open-files limit goes up to the hard one
# (compose sets both; docs/deploy.md, "Descriptors and kernel settings").
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# exec replaces the shell, so SIGTERM reaches node directly and starts its drain.
# APP_DIR is the image's WORKDIR (/app); a test runs the same layout from elsewhere.
# NODE_FLAGS unquoted: one word per flag.
# shellcheck disable=SC2086
exec node $NODE_FLAGS "${APP_DIR:-/app}/dist/services/${SERVICE}/main.js"
