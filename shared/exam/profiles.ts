// The exam profiles (docs/exam.md): each step is an ordinary chaos or
// control URL, what a good client does with it, and how the entries recorded
// under it are graded. Every profile stays far inside the per-IP limits (a
// dozen requests or so; its 429 comes from /rate-limit, never the real one).
import type { StepEntry } from './recorder.js';
import { fail, gaps, gaveUpGrade, pass, redirectGrade, requests, retryGrade, second, seconds, SLACK_MS, type StepDef } from './grading.js';
import { AGENTS } from './agents.js';

export type { Graded, StepDef, Verdict } from './grading.js';

const RETRIES: readonly StepDef[] = [
  {
    name: 'fail-first',
    host: 'chaos',
    target: '/fail-first?id=exam-{id}&n=2',
    what: 'GET it; on the 503 retry with a backoff (Retry-After: 1 says at least 1 s) until the 200, a handful of tries at most',
    expected: '3 requests, each retry at least 1 s after the previous answer, ending in 200',
    why: 'A transient 503 is the commonest failure there is; retrying at once turns one overloaded server into a stampede',
    fix: 'retry idempotent requests on 503 with exponential backoff and jitter, honouring Retry-After',
    grade: (entries) => (entries.length === 1 ? fail(`${requests(entries)}: no retry after the 503`) : retryGrade(entries, 1000, 6, true)),
  },
  {
    name: 'retry-after-seconds',
    host: 'chaos',
    target: '/throttle?id=exam-{id}&seconds=2',
    what: 'GET it; the 503 says Retry-After: 2 (seconds): wait that long, then retry and get the 200',
    expected: 'a retry no sooner than 2 s after the 503, then 200',
    why: 'Retry-After is the server telling you when it can serve you; an early retry is refused again and costs both sides',
    fix: 'parse Retry-After as delta-seconds and sleep at least that long before the retry',
    grade: (entries) => (entries.length === 1 ? fail(`${requests(entries)}: no retry after the 503`) : retryGrade(entries, 1900, 4, true)),
  },
  {
    name: 'retry-after-date',
    host: 'chaos',
    target: '/retry-after-formats?mode=http-date&status=503',
    what: 'GET it; the 503 carries Retry-After as an HTTP-date 30 s ahead: wait until then before a retry, or give up if that is longer than you will wait',
    expected: 'no retry within 30 s of the 503 (giving up is fine)',
    why: 'Retry-After may be an HTTP-date (RFC 9110 §10.2.3); a client that reads only seconds retries at once',
    fix: 'parse both Retry-After forms (delta-seconds and HTTP-date) before scheduling a retry',
    grade: (entries) => retryGrade(entries, 29_000, 3, false),
  },
  {
    name: 'rate-limit-429',
    host: 'chaos',
    target: '/rate-limit?retry_after=2',
    what: 'GET it; every answer is 429 with Retry-After: 2 and X-RateLimit-* headers: wait at least 2 s between tries and give up after a few',
    expected: 'every retry at least 2 s after the previous 429, at most 4 requests in all',
    why: 'A 429 is a request to slow down; hammering it, or retrying for ever, gets a client banned',
    fix: 'treat 429 like 503: honour Retry-After, cap the attempts, then surface the error',
    grade: (entries) => retryGrade(entries, 1900, 4, false),
  },
  {
    name: 'post-503',
    host: 'chaos',
    target: '/throttle?id=exam-{id}-post&seconds=1',
    what: 'POST `a=1` to it (a write): the answer is 503 with Retry-After: 1; a POST is not idempotent, so do not resend it on your own: hand the 503 to the caller',
    expected: 'exactly one request: the POST is not retried',
    why: 'A 503 does not say whether the POST took effect; resending it blindly can charge a card twice or create a duplicate (RFC 9110 §9.2.2: only idempotent requests may be retried automatically)',
    fix: 'retry automatically only idempotent methods (or a POST with an idempotency key); hand a 503 on a POST to the caller',
    grade: (entries) => {
      const first = entries[0] as StepEntry;
      if (first.method !== 'POST' || (first.bodyBytes ?? 0) === 0) return fail(`sent ${first.method} with ${first.bodyBytes ?? 0} body bytes: send a POST with a body (a=1)`);
      if (entries.length === 1) return pass(`one POST (${first.bodyBytes} bytes), answered ${first.status || 'nothing'}, not retried`);
      const resent = entries.filter((e) => e.method === 'POST').length - 1;
      return fail(`${requests(entries)}: the POST was resent ${resent} time${resent === 1 ? '' : 's'}, first ${seconds(gaps(entries)[0] as number)} after the ${first.status || 'failure'}`);
    },
  },
];

const REDIRECTS: readonly StepDef[] = [
  {
    name: 'redirect-302',
    host: 'chaos',
    target: '/redirect-kinds?code=302',
    what: 'POST a small body to it and follow the 302',
    expected: 'the target reached as GET without a body (what browsers do) or as POST with the same body; never a POST without its body',
    why: 'RFC 9110 lets a 302 turn POST into GET; a client that keeps POST but drops the body sends a different request',
    fix: 'on 301/302 either switch to GET and drop the body, or resend method and body unchanged',
    grade: (entries) =>
      redirectGrade(entries, (target, first) =>
        target.method === 'GET' && (target.bodyBytes ?? 0) === 0
          ? undefined
          : target.method === 'POST' && target.bodyBytes === first.bodyBytes
            ? undefined
            : 'neither GET without a body nor the same POST'),
  },
  {
    name: 'redirect-303',
    host: 'chaos',
    target: '/redirect-kinds?code=303',
    what: 'POST a small body to it and follow the 303',
    expected: 'the target reached as GET, without the body',
    why: '303 See Other means "GET the result there"; resending the POST repeats the action',
    fix: 'on 303 follow with GET (HEAD stays HEAD) and drop the body',
    grade: (entries) => redirectGrade(entries, (target) => (target.method === 'GET' && (target.bodyBytes ?? 0) === 0 ? undefined : 'a 303 must be followed with GET and no body')),
  },
  {
    name: 'redirect-307',
    host: 'chaos',
    target: '/redirect-kinds?code=307',
    what: 'POST a small body to it and follow the 307',
    expected: 'the target reached as POST with the same body',
    why: '307 keeps the method and the body (RFC 9110 §15.4.8); a client that switches to GET loses the request',
    fix: 'on 307/308 resend the same method and body to the new location',
    grade: (entries) => redirectGrade(entries, (target, first) => (target.method === 'POST' && target.bodyBytes === first.bodyBytes ? undefined : 'a 307 must keep the method and the body')),
  },
  {
    name: 'redirect-308',
    host: 'chaos',
    target: '/redirect-kinds?code=308',
    what: 'POST a small body to it and follow the 308',
    expected: 'the target reached as POST with the same body',
    why: '308 is the permanent 307: method and body kept (RFC 9110 §15.4.9)',
    fix: 'on 307/308 resend the same method and body to the new location',
    grade: (entries) => redirectGrade(entries, (target, first) => (target.method === 'POST' && target.bodyBytes === first.bodyBytes ? undefined : 'a 308 must keep the method and the body')),
  },
  {
    name: 'redirect-loop',
    host: 'chaos',
    target: '/redirect-loop?n=2',
    what: 'GET it and follow redirects: it is a loop of two URLs that never resolves; stop after your redirect limit',
    expected: 'it follows at least one hop and stops within 50',
    why: 'A redirect loop is a common misconfiguration; a client without a limit spins for ever',
    fix: 'cap redirects (browsers stop at 20) and report the loop',
    grade: (entries) =>
      entries.length < 2
        ? fail(`${entries.length} request: the redirect was not followed`)
        : entries.length > 50
          ? fail(`${entries.length} requests: still following after 50 hops`)
          : pass(`followed ${entries.length - 1} hops, then stopped`),
  },
  {
    name: 'cross-host-authorization',
    host: 'chaos',
    target: '/redirect-cross-host?hops=1',
    what: 'GET it with `Authorization: Bearer exam-token` and follow the redirect: it goes to another host (the control host)',
    expected: 'Authorization sent to the chaos host, not sent on to the control host',
    why: 'Credentials forwarded across hosts leak to whoever the redirect names (curl CVE-2018-1000007, requests CVE-2018-18074)',
    fix: 'drop Authorization (and Cookie not scoped to the new host) when a redirect changes host, port or scheme',
    grade: (entries) => {
      const first = entries.find((e) => e.host === 'chaos');
      const other = entries.find((e) => e.host === 'control');
      if (first === undefined) return fail('the chaos hop was never requested');
      if (!first.authorization) return fail('no Authorization on the first request: send one, so the hop can show whether it is kept');
      if (other === undefined) return fail('Authorization sent; the redirect to the control host was not followed');
      if (other.authorization) return fail('Authorization sent, and sent again to the control host: leaked across hosts');
      return pass('Authorization sent to the chaos host and dropped on the hop to the control host');
    },
  },
  {
    name: 'cross-host-cookie',
    host: 'chaos',
    target: '/redirect-cross-host?hops=1&cookie=true',
    what: 'GET it with your cookie jar and follow the redirect: the answer sets a host-only cookie (chaos_hop, no Domain) and redirects to another host name (the control host)',
    expected: 'the cookie is not sent to the other host',
    why: 'A cookie without Domain belongs to the host that set it alone (RFC 6265 §5.3); sending it to another host leaks a session to whoever the redirect names',
    fix: 'keep cookies per host (host-only unless Domain says otherwise) and choose them again for every hop of a redirect',
    grade: (entries) => {
      const first = entries.find((e) => e.host === 'chaos');
      const other = entries.find((e) => e.host === 'control');
      if (first === undefined) return fail('the chaos hop was never requested');
      if (other === undefined) return fail('the redirect to the other host was not followed');
      if (other.cookie) return fail('the chaos host\'s host-only cookie was sent to the other host: leaked across hosts');
      return pass('followed to the other host without the chaos host\'s cookie');
    },
  },
  {
    name: 'https-downgrade',
    host: 'tls',
    target: '/redirect-cross-host?hops=1',
    what: 'GET it over https with `Authorization: Bearer exam-token` (trust the test root the hub publishes at /tls/root.pem): it redirects to an http URL; do not follow to http, or follow without Authorization',
    expected: 'no Authorization over http: the redirect not followed, or followed without it',
    why: 'A credential sent after an https to http redirect crosses the network in clear text (curl CVE-2022-27776; RFC 9110 §15.4 lets a client refuse the downgrade)',
    fix: 'never send Authorization (or cookies) on a redirect from https to http; better, refuse to follow it',
    grade: (entries) => {
      const secure = entries.find((e) => e.tls === true);
      const plain = entries.find((e) => e.tls !== true);
      if (secure === undefined) return fail('the https request was never made (trust the test root first)');
      if (!secure.authorization) return fail('no Authorization on the https request: send one, so the hop can show where it goes');
      if (plain === undefined) return pass('Authorization sent over https; the redirect to http was not followed');
      if (plain.authorization) return fail('followed the redirect to http and sent Authorization there: in clear text');
      return pass('Authorization sent over https, followed to http without it');
    },
  },
];

const TIMEOUTS: readonly StepDef[] = [
  {
    name: 'stall',
    host: 'chaos',
    target: '/stall?after=16&ms=20000',
    what: 'GET it with your timeout: 16 bytes arrive, then nothing for 20 s; give up well before that',
    expected: 'the client closes before the 20 s silence ends',
    why: 'A peer that stops sending mid-body is the classic hang; without a read timeout the caller waits for ever',
    fix: 'set a read (idle) timeout, and an overall deadline, on every request',
    grade: (entries) => gaveUpGrade(entries, 20_000),
  },
  {
    name: 'slow-headers',
    host: 'chaos',
    target: '/slow-headers?ms=1000&lines=20',
    what: 'GET it with your timeout: the head trickles in, one header line a second for 20 s; give up before it ends',
    expected: 'the client closes before the head is complete (20 s)',
    why: 'A read timeout that resets on every byte never fires on a trickle; only a header or overall deadline does',
    fix: 'bound the time to the response head (a headers timeout), not just the time between bytes',
    grade: (entries) => gaveUpGrade(entries, 20_000),
  },
  {
    name: 'drip',
    host: 'chaos',
    target: '/drip?bytes=20&interval=1000&chunk=1',
    what: 'GET it with your deadline: the 20-byte body comes one byte a second; give up before it ends',
    expected: 'the client closes before the body is complete (19 s)',
    why: 'Each byte resets an idle timeout: only an overall deadline stops a drip',
    fix: 'give each request an overall deadline (AbortSignal.timeout, a context deadline)',
    grade: (entries) => gaveUpGrade(entries, 19_000),
  },
  {
    name: 'keepalive-lie',
    host: 'chaos',
    target: '/keepalive-lie',
    what: 'GET it twice, one after the other, with the same client: the first answer says keep-alive and then the server closes',
    expected: 'both requests answered, the second on a fresh connection',
    why: 'Servers close idle connections all the time; a pooled client must notice and retry an idempotent request on a new one',
    fix: 'retry an idempotent request once on a fresh connection when a pooled one turns out closed',
    grade: (entries) => {
      const answered = entries.filter((e) => e.status === 200);
      if (answered.length < 2) return fail(`${answered.length} request answered: the second never arrived on a fresh connection`);
      return new Set(answered.map((e) => e.conn)).size >= 2
        ? pass(`${answered.length} requests answered, on ${new Set(answered.map((e) => e.conn)).size} connections`)
        : fail('both requests on one connection');
    },
  },
];

const CACHING: readonly StepDef[] = [
  {
    name: 'etag',
    host: 'control',
    target: '/etag',
    what: 'GET it twice through your cache: the answer has an ETag; the second request should revalidate with If-None-Match',
    expected: 'a second request carrying If-None-Match, answered 304',
    why: 'Revalidation saves the body; a cache that refetches everything, or never revalidates, is wrong one way or the other',
    fix: 'store ETag and send it back as If-None-Match; treat 304 as "use what you have"',
    grade: (entries) => {
      const next = second(entries);
      if (next === undefined) return fail('one request: the second GET never reached the server');
      if (next.ifNoneMatch === undefined) return fail('the second request carried no If-None-Match');
      return next.status === 304 ? pass(`If-None-Match: ${next.ifNoneMatch}, answered 304`) : fail(`If-None-Match: ${next.ifNoneMatch} did not match (status ${next.status})`);
    },
  },
  {
    name: 'last-modified',
    host: 'chaos',
    target: '/etag?mode=future-last-modified',
    what: 'GET it twice through your cache: the only validator is Last-Modified; the second request should carry If-Modified-Since',
    expected: 'a second request carrying If-Modified-Since',
    why: 'Without an ETag, Last-Modified is the validator (RFC 9111 §4.3.1); this one is even in the future, which a cache must still just echo',
    fix: 'store Last-Modified and send it back as If-Modified-Since',
    grade: (entries) => {
      const next = second(entries);
      if (next === undefined) return fail('one request: the second GET never reached the server');
      return next.ifModifiedSince === undefined ? fail('the second request carried no If-Modified-Since') : pass(`If-Modified-Since: ${next.ifModifiedSince}`);
    },
  },
  {
    name: 'no-store',
    host: 'chaos',
    target: '/cache-confused?mode=store-vs-age',
    what: 'GET it twice through your cache: Cache-Control says no-store (and max-age=300): nothing may be kept',
    expected: 'two unconditional requests: the second is not served from a cache',
    why: 'no-store wins over max-age (RFC 9111 §5.2.2.5); caching it can serve one user\'s answer to another',
    fix: 'never store a response marked no-store, whatever else Cache-Control says',
    grade: (entries) => {
      const next = second(entries);
      if (next === undefined) return fail('one request: the second GET was answered from a cache');
      return next.ifNoneMatch !== undefined || next.ifModifiedSince !== undefined ? fail('the second request was conditional: something was stored') : pass('two unconditional requests');
    },
  },
  {
    name: 'vary',
    host: 'control',
    target: '/compression',
    what: 'GET it with `Accept-Encoding: gzip`, then with `Accept-Encoding: identity`: the answer says Vary: Accept-Encoding',
    expected: 'both requests reach the server, each with its own Accept-Encoding',
    why: 'Vary names the request headers an answer depends on; a cache that ignores it serves gzip to a client that cannot read it',
    fix: 'key cached answers on the headers their Vary names',
    grade: (entries) => {
      const values = new Set(entries.map((e) => e.acceptEncoding ?? '(none)'));
      if (entries.length < 2) return fail('one request: the second was answered from a cache');
      return values.size >= 2 ? pass(`Accept-Encoding ${[...values].join(' then ')}, both sent`) : fail(`both requests sent Accept-Encoding ${[...values].join('')}`);
    },
  },
];

const STREAMS: readonly StepDef[] = [
  {
    name: 'sse-resume',
    host: 'chaos',
    target: '/sse?mode=cut-mid-event',
    what: 'open it as an event stream (EventSource or your SSE client): after two events the stream is cut; reconnect after `retry:` (3 s) with Last-Event-ID',
    expected: 'a reconnection at least 3 s after the cut, carrying Last-Event-ID: 2',
    why: 'Streams break; Last-Event-ID is how a client resumes without losing or repeating events (WHATWG HTML §9.2)',
    fix: 'remember the last event id and send it as Last-Event-ID when reconnecting, after the retry delay',
    grade: (entries) => {
      const next = second(entries);
      if (next === undefined) return fail('no reconnection after the cut');
      const gap = gaps(entries)[0] as number;
      if (next.lastEventId !== '2') return fail(`reconnected after ${seconds(gap)} with Last-Event-ID ${next.lastEventId === undefined ? 'absent' : `"${next.lastEventId}"`}; 2 was the last complete event`);
      if (gap < 3000 - SLACK_MS) return fail(`reconnected with Last-Event-ID: 2 after ${seconds(gap)}, sooner than retry: 3000`);
      return pass(`reconnected after ${seconds(gap)} with Last-Event-ID: 2`);
    },
  },
  {
    name: 'truncated-download',
    host: 'chaos',
    target: '/truncate?at=1000',
    what: 'download it: Content-Length promises 2000 bytes, 1000 come, then the connection closes; resume with `Range: bytes=1000-`',
    expected: 'a second request with Range: bytes=1000- (If-Range too when the answer had a validator; this one has none)',
    why: 'Resuming saves re-downloading what arrived; starting over on a big file may never finish on a bad link',
    fix: 'on a short body, ask for the rest with Range: bytes=<received>- (and If-Range with the validator you got)',
    grade: (entries) => {
      const next = second(entries);
      if (next === undefined) return fail('no second request: the download was not resumed');
      const ifRange = next.ifRange === undefined ? 'no If-Range' : 'If-Range';
      if (next.range === undefined) return fail(`retried without Range: started over (${ifRange})`);
      return /^bytes=1000-\s*$/.test(next.range) ? pass(`resumed with Range: ${next.range} (${ifRange})`) : fail(`resumed with Range: ${next.range}, not from byte 1000`);
    },
  },
];

export const PROFILES: Readonly<Record<string, readonly StepDef[]>> = {
  retries: RETRIES,
  redirects: REDIRECTS,
  timeouts: TIMEOUTS,
  caching: CACHING,
  streams: STREAMS,
  agents: AGENTS,
};

export const PROFILE_NAMES = Object.keys(PROFILES);
