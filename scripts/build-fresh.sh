#!/usr/bin/env bash
# Exits 0 when the build stamp exists and no input (file or folder, so a
# deleted or renamed source counts too) changed after it; 1 when a build is due.
# Usage: build-fresh.sh STAMP INPUT...
set -uo pipefail
stamp=$1
shift
[ -f "$stamp" ] || exit 1
[ -z "$(find "$@" -newer "$stamp" -print -quit 2>/dev/null)" ]
