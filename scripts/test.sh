#!/usr/bin/env bash
# Runs every test (compiled to dist/) and ends with the plain summary line
# `N passed, N failed`. A skipped or todo test counts as failed (CI rule).
set -uo pipefail
mkdir -p .tap
log=.tap/last-run.tap
npx tap --reporter=tap "$@" $(find dist/tests -name "*.test.js" | sort) 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
summary=$(grep -E '^# \{ total: [0-9]+' "$log" | tail -n 1)
total=$(sed -E 's/.*total: ([0-9]+).*/\1/' <<<"$summary")
pass=$(grep -oE 'pass: [0-9]+' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
if [ -z "$summary" ]; then
  echo "0 passed, 1 failed"
  exit 1
fi
failed=$((total - pass))
echo
grep -E '^\s*not ok' "$log" | head -n 50 || true
echo "${pass} passed, ${failed} failed"
if [ "$failed" -ne 0 ] && [ "$rc" -eq 0 ]; then rc=1; fi
exit "$rc"
