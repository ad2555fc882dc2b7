// The exam runners of the Node and Python clients and the SDKs
// (scripts/exam/run.ts), each with its real client on the exam tests' stack,
// at once: the steps whose outcome is certain for the client get the verdict
// they must.
// tests/integration/clients/exam-runners-native.test.ts has the others.
import t from 'tap';
import { FOLLOWS_ALL, NO_CACHE, testRunners } from '../../helpers/exam-runners.js';

await testRunners(t, [
  {
    runner: 'node-http', profile: 'redirects', because: 'node:http follows no redirect (so not the one from https to http either)',
    expected: { 'redirect-302': 'fail', 'redirect-303': 'fail', 'redirect-307': 'fail', 'redirect-308': 'fail', 'redirect-loop': 'fail', 'cross-host-authorization': 'fail', 'https-downgrade': 'pass' },
  },
  { runner: 'node-http', profile: 'caching', because: 'node:http has no cache', expected: NO_CACHE },
  { runner: 'fetch', profile: 'redirects', because: 'fetch follows by the book, drops Authorization across origins (the https step trusting the root through NODE_EXTRA_CA_CERTS)', expected: FOLLOWS_ALL },
  { runner: 'fetch', profile: 'timeouts', because: 'AbortSignal.timeout bounds the whole exchange', expected: { stall: 'pass', 'slow-headers': 'pass', drip: 'pass' } },
  { runner: 'axios', profile: 'redirects', because: 'axios (follow-redirects) follows by the book and drops Authorization on another host', expected: FOLLOWS_ALL },
  { runner: 'got', profile: 'redirects', because: 'got follows by the book and drops Authorization on another host', expected: FOLLOWS_ALL },
  { runner: 'got', profile: 'timeouts', because: 'timeout.request bounds the whole exchange', expected: { stall: 'pass', 'slow-headers': 'pass', drip: 'pass' } },
  {
    runner: 'urllib', profile: 'redirects', because: 'urllib follows a 302/303 POST as GET, refuses a 307/308 POST, and keeps Authorization across hosts, from https to http too',
    expected: { 'redirect-302': 'pass', 'redirect-303': 'pass', 'redirect-307': 'fail', 'redirect-308': 'fail', 'redirect-loop': 'pass', 'cross-host-authorization': 'fail', 'https-downgrade': 'fail' },
  },
  {
    runner: 'requests', profile: 'redirects', because: 'requests follows by the book, its Session jar keeps the cookie to its host, Authorization is dropped on another host',
    expected: { ...FOLLOWS_ALL, 'cross-host-cookie': 'pass' },
  },
  { runner: 'requests', profile: 'retries', because: 'requests retries nothing by default: one POST', expected: { 'post-503': 'pass', 'fail-first': 'fail' } },
  { runner: 'requests', profile: 'caching', because: 'requests has no cache', expected: NO_CACHE },
  { runner: 'httpx', profile: 'redirects', because: 'httpx, told to follow, follows by the book and drops Authorization on another host', expected: FOLLOWS_ALL },
  { runner: 'aiohttp', profile: 'redirects', because: 'aiohttp follows by the book and drops Authorization on another host', expected: FOLLOWS_ALL },
  {
    runner: 'sdk', profile: 'agents', because: 'the MCP SDK does not initialize again after the session\'s 404; the Anthropic SDK retries the 529 after its retry-after, twice',
    expected: { 'mcp-session-expired': 'fail', 'llm-529-retry-after': 'pass' },
  },
  { runner: 'aiohttp', profile: 'streams', because: 'the runner resumes the stream as the caller must; aiohttp resumes no download', expected: { 'sse-resume': 'pass', 'truncated-download': 'fail' } },
]);
