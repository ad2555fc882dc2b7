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
# exec replaces the shell, so SIGTERM reaches node directly and starts its drain.
# APP_DIR is the image's WORKDIR (/app); a test runs the same layout from elsewhere.
exec node "${APP_DIR:-/app}/dist/services/${SERVICE}/main.js"
