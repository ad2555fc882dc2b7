#!/usr/bin/env bash
# Runs every test (compiled to dist/) through scripts/run-tests.ts, two files at once, and ends with the
# plain summary line `N passed, N failed`. A skipped or todo test counts as failed (CI rule).
# Arguments go to the runner: files or folders under dist/tests, --jobs N, --timeout S.
set -uo pipefail
mkdir -p .tap
log=.tap/last-run.tap
node dist/scripts/run-tests.js "$@" 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
