#!/bin/sh
# Takes a client exam (docs/exam.md) with curl, used as a careful script would
# use it, and prints the graded Markdown table.
#   scripts/exam/curl.sh [profile] [hub URL]     (default: retries, http://localhost:8082)
# The flags are the point: --retry honours Retry-After, -L follows redirects
# (curl drops Authorization on another host), -b/-c keep cookies per host,
# --max-time is the deadline, --etag-save/--etag-compare revalidate, -C -
# resumes. curl is no MCP client: mcp-session-expired is not run. Needs curl and sed.
set -eu
profile=${1:-retries}
hub=${2:-http://localhost:8082}
opened=$(curl -sS --fail-with-body -X POST "$hub/exam?profile=$profile")
id=$(printf '%s' "$opened" | sed -n 's/^{"id":"\([A-Za-z0-9_-]*\)".*/\1/p')
[ -n "$id" ] || { echo "no exam opened: $opened" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One line per step: name and URL, read from the steps of the 201.
printf '%s\n' "$opened" | sed 's/},{/}\n{/g' | sed -n 's/.*"name":"\([a-z0-9-]*\)","url":"\([^"]*\)".*/\1 \2/p' > "$work/steps"
echo "exam $id ($profile): $(wc -l < "$work/steps") steps" >&2
# Background jobs must not read the step list on stdin.
q() { curl -s -o /dev/null "$@" < /dev/null || true; }
while read -r name url; do
  case $name in
    fail-first|retry-after-seconds|retry-after-date|rate-limit-429)
      # --retry treats 429 and 503 as transient and waits Retry-After when it is given in seconds.
      q --retry 3 --retry-max-time 15 "$url" & ;;
    # The same careful flags on a write: what --retry makes of a POST is what is graded.
    post-503) q --retry 3 --retry-max-time 15 -d 'a=1' "$url" & ;;
    redirect-30[0-9]) q -L -d 'a=1&b=2' "$url" & ;;
    # curl's own limit is 50 hops: 20 keeps the profile inside the per-IP limit (60 a minute).
    redirect-loop) q -L --max-redirs 20 "$url" & ;;
    cross-host-authorization) q -L -H 'Authorization: Bearer exam-token' "$url" & ;;
    # The cookie engine on (-b/-c): curl keeps the cookie for the host that set it.
    cross-host-cookie) q -L -b "$work/cookies" -c "$work/cookies" "$url" & ;;
    # The TLS host's test root, from the hub; curl resolves *.localhost to the loopback by itself.
    https-downgrade)
      curl -sS -o "$work/root.pem" "$hub/tls/root.pem" < /dev/null
      q -L --cacert "$work/root.pem" -H 'Authorization: Bearer exam-token' "$url" & ;;
    # An Anthropic-shape POST with the same careful --retry: 529 is not among curl's transient codes.
    llm-529-retry-after)
      q --retry 3 --retry-max-time 15 -H 'Content-Type: application/json' -H 'anthropic-version: 2023-06-01' \
        -d '{"model":"exam","max_tokens":16,"messages":[{"role":"user","content":"hello"}]}' "$url" & ;;
    stall|slow-headers|drip) q --max-time 2 "$url" & ;;
    keepalive-lie) q "$url" --next "$url" & ;;
    etag|last-modified|no-store)
      (q --etag-save "$work/$name.etag" "$url"; q --etag-compare "$work/$name.etag" "$url") & ;;
    vary) (q -H 'Accept-Encoding: gzip' "$url"; q -H 'Accept-Encoding: identity' "$url") & ;;
    sse-resume) q -N -H 'Accept: text/event-stream' "$url" & ;;
    truncated-download) (curl -s -o "$work/download" "$url" < /dev/null || curl -s -C - -o "$work/download" "$url" < /dev/null || true) & ;;
    *) echo "no curl command for step $name" >&2 ;;
  esac
done < "$work/steps"
wait
sleep 1
curl -sS "$hub/exam/$id.md"
