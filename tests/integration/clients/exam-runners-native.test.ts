// The exam runners of curl, wget, Go, Java and Chromium (scripts/exam/run.ts),
// each with its real client on the exam tests' stack, at once: the steps
// whose outcome is certain for the client get the verdict they must. Go's
// runner is built into a temporary directory first, Java's compiled from
// source by `java`. tests/integration/clients/exam-runners.test.ts has the Node
// and Python clients.
import t from 'tap';
import { FOLLOWS_ALL, testRunners } from '../../helpers/exam-runners.js';

/** Followed by the book, but Authorization kept on the hop to another host. */
const LEAKS_AUTHORIZATION = { ...FOLLOWS_ALL, 'cross-host-authorization': 'fail' } as const;

await testRunners(t, [
  { runner: 'curl', profile: 'redirects', because: 'curl -L follows by the book and drops Authorization on another host', expected: FOLLOWS_ALL },
  {
    runner: 'curl', profile: 'retries', because: 'curl --retry retries a 503 and waits its Retry-After in seconds, a POST\'s too',
    expected: { 'fail-first': 'pass', 'retry-after-seconds': 'pass', 'post-503': 'fail' },
  },
  { runner: 'curl', profile: 'streams', because: 'curl -C - resumes the download; curl has no event-stream reconnection', expected: { 'sse-resume': 'fail', 'truncated-download': 'pass' } },
  {
    runner: 'wget', profile: 'redirects', because: 'wget follows by the book but keeps Authorization on another host; it cannot reach the https step\'s *.localhost host here',
    expected: { ...LEAKS_AUTHORIZATION, 'https-downgrade': 'not-run' },
  },
  { runner: 'go', profile: 'redirects', because: 'Go follows by the book and drops Authorization on another host', expected: FOLLOWS_ALL },
  { runner: 'go', profile: 'timeouts', because: 'a context deadline bounds the whole exchange', expected: { stall: 'pass', 'slow-headers': 'pass', drip: 'pass' } },
  {
    runner: 'java', profile: 'redirects', because: 'HttpClient (NORMAL) follows by the book but keeps Authorization on another host; NORMAL never follows https to http',
    expected: LEAKS_AUTHORIZATION,
  },
  {
    runner: 'chromium', profile: 'redirects', because: 'the browser follows by the book; Authorization makes the cross-origin hop need a preflight, which stops it; a secure page\'s fetch is not let down to http',
    expected: { ...FOLLOWS_ALL, 'cross-host-authorization': 'fail' },
  },
  { runner: 'chromium', profile: 'streams', because: 'EventSource reconnects with Last-Event-ID after retry:; the browser resumes no fetch', expected: { 'sse-resume': 'pass', 'truncated-download': 'fail' } },
]);
