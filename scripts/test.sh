#!/usr/bin/env bash
# Runs every test (compiled to dist/) and ends with the plain summary line
# `N passed, N failed`. A skipped or todo test counts as failed (CI rule).
#
# Two passes: every file in tap's parallel pool, then the files in ALONE one
# after the other with nothing beside them. tests/integration/http2/
# client-cells.test.js runs alone: beside it, the HTTP/2 walk of
# tests/integration/http2/ordinary.test.js saw its client streams stay open
# after our END_STREAM (reproduced: run the two files in one tap call); the
# cause is not found yet (issue 28), and the walk must not pass by luck or fail
# by it.
set -uo pipefail
mkdir -p .tap
log=.tap/last-run.tap
ALONE=(dist/tests/integration/http2/client-cells.test.js)
pool=$(find dist/tests -name "*.test.js" | sort | grep -v -F -x "${ALONE[@]/#/-e}")
npx tap --reporter=tap "$@" $pool 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
npx tap --reporter=tap --jobs=1 "$@" "${ALONE[@]}" 2>&1 | tee -a "$log"
rc2=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && rc=$rc2
total=0
pass=0
passes=0
while read -r summary; do
  total=$((total + $(sed -E 's/.*total: ([0-9]+).*/\1/' <<<"$summary")))
  pass=$((pass + $(grep -oE 'pass: [0-9]+' <<<"$summary" | grep -oE '[0-9]+' || echo 0)))
  passes=$((passes + 1))
done < <(grep -E '^# \{ total: [0-9]+' "$log")
if [ "$passes" -ne 2 ]; then
  echo "0 passed, 1 failed"
  exit 1
fi
failed=$((total - pass))
echo
grep -E '^\s*not ok' "$log" | head -n 50 || true
echo "${pass} passed, ${failed} failed"
if [ "$failed" -ne 0 ] && [ "$rc" -eq 0 ]; then rc=1; fi
exit "$rc"
