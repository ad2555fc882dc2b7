// The /infinite per-IP limit (SPEC §8): 10 requests per 60 s, separate from the
// general limit, answered with a real 429 (Retry-After, problem+json, no X-Chaos-*).
import t from 'tap';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startHttp, testConfig } from '../../helpers/servers.js';

async function status(port: number, path: string, headers: Record<string, string> = {}) {
  const r = await rawExchange(port, get(path, headers), { until: completeByLength });
  const head = parseHead(r.data);
  return { head, body: head.rest.subarray(0, Number(head.header('content-length') ?? 0)) };
}

t.test('10 requests per 60 s per IP, then a real 429', async (t) => {
  // Loopback is the proxy here: every request names its client in X-Forwarded-For
  // (one the proxy sends without it is its own health check, which no limit counts).
  const { port } = await startHttp(t, 'control', testConfig({ TRUST_PROXY: '127.0.0.1' }));
  const client = { 'X-Forwarded-For': '192.0.2.6' };
  // Requests refused before the generator (404, 414, 400) do not count.
  t.equal((await status(port, '/infinite/json/widgets/a', client)).head.status, 404);
  t.equal((await status(port, `/infinite/json/users/${'a'.repeat(1025)}`, client)).head.status, 414);
  t.equal((await status(port, '/infinite/json/users/a?fields=a%20b', client)).head.status, 400);
  t.equal((await status(port, '/infinite/html/users/../../x', client)).head.status, 400, 'a dot-segment tail');
  for (let i = 0; i < 10; i++) {
    const { head } = await status(port, `/infinite/${i % 2 ? 'json' : 'html'}/users/limit-${i}`, client);
    t.equal(head.status, 200, `request ${i + 1}`);
  }
  const { head, body } = await status(port, '/infinite/html/users/limit-11', client);
  t.equal(head.status, 429, 'the 11th within the minute');
  const retry = Number(head.header('retry-after'));
  t.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  t.equal(head.header('content-type'), 'application/problem+json');
  t.equal(head.header('ratelimit-policy'), '"infinite";q=10;w=60');
  t.equal(head.header('x-robots-tag'), 'noindex, nofollow');
  t.same(head.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], 'a real limit: no X-Chaos-* header');
  t.equal(head.header('x-not-payload'), undefined);
  const problem = JSON.parse(body.toString()) as Record<string, unknown>;
  t.equal(problem.status, 429);
  t.equal(problem.policy, 'infinite');
  t.match(problem.detail, /10 requests per 60 seconds per IP/);
  t.match(problem.detail, /not chaos/);

  t.equal((await status(port, '/bytes', client)).head.status, 200, 'the rest of the host is not limited by it');
  const other = await status(port, '/infinite/html/users/limit-11', { 'X-Forwarded-For': '192.0.2.7' });
  t.equal(other.head.status, 200, 'another client (through the trusted proxy) has its own budget');
});

t.test("a client's own X-Forwarded-For does not buy it another budget", async (t) => {
  // TRUST_PROXY unset: nobody is believed about somebody else.
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_INFINITE: '3' }));
  const codes: number[] = [];
  for (let i = 0; i < 6; i++) {
    codes.push((await status(port, `/infinite/json/posts/rotate-${i}`, { 'X-Forwarded-For': `192.0.2.${i + 1}` })).head.status);
  }
  t.same(codes, [200, 200, 200, 429, 429, 429]);
});

t.test('RATE_LIMIT_INFINITE=0 turns the limit off', async (t) => {
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_INFINITE: '0' }));
  for (let i = 0; i < 25; i++) {
    const { head } = await status(port, `/infinite/json/posts/off-${i}`);
    if (head.status !== 200) return t.fail(`request ${i + 1}: ${head.status}`);
  }
  t.pass('25 requests, no 429');
});

t.test('another limit value is honoured', async (t) => {
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_INFINITE: '3' }));
  const codes: number[] = [];
  for (let i = 0; i < 4; i++) codes.push((await status(port, `/infinite/json/posts/three-${i}`)).head.status);
  t.same(codes, [200, 200, 200, 429]);
});
