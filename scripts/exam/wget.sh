#!/bin/sh
# Takes the steps of a client exam (docs/exam.md) with wget, as a script uses
# it: wget's defaults (20 tries, a resume with Range after a short read,
# redirects followed, cookies kept in memory within one run, no cache), plus
# what a step asks of the caller: --timeout=2 (each read), a POST body, an
# Authorization header, a second URL in the same run (the same connection
# when wget keeps it). Reads `name url` lines on stdin; scripts/exam/run.ts
# opens the exam, feeds the lines and prints the grade:
#   node dist/scripts/exam/run.js wget [profile] [hub URL]
set -eu
# Errors are wget's answer to a lie: the service records what happened.
q() { wget -q -O /dev/null "$@" < /dev/null || true; }
while read -r name url; do
  case $name in
    redirect-30[0-9]) q --post-data='a=1&b=2' "$url" & ;;
    post-503) q --post-data='a=1' "$url" & ;;
    cross-host-authorization) q --header='Authorization: Bearer exam-token' "$url" & ;;
    # run.js withholds it here (ExamRunner.cannotTake): wget has no way to reach good.<TLS_BASE> where the system does not resolve it.
    https-downgrade) q --ca-certificate="${EXAM_CA_FILE:-}" --header='Authorization: Bearer exam-token' "$url" & ;;
    stall|slow-headers|drip) q --timeout=2 "$url" & ;;
    keepalive-lie|etag|last-modified|no-store) q "$url" "$url" & ;;
    vary) (q --header='Accept-Encoding: gzip' "$url"; q --header='Accept-Encoding: identity' "$url") & ;;
    # No SSE in wget: one download of the stream, and what its own retries make of the cut.
    sse-resume) q --header='Accept: text/event-stream' "$url" & ;;
    # The retry steps, the loop, the cookie hop, the download: wget as it is.
    *) q "$url" & ;;
  esac
done
wait
