// The control twins of /status/{code}, /flaky, /rate-limit, /retry-mismatch,
// /auth-required and /random: well-formed, so fetch is fine where framing is
// not the point; raw sockets for interim heads and bodiless codes.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { pickFor, randomPool } from '../../shared/registry/random-pick.js';
import { digestNonce } from '../../shared/content/auth/index.js';
import { retryBody } from '../../shared/content/fault-injection/index.js';
import { exchange, json, pipelined } from '../helpers/final-response.js';
import { get } from '../helpers/raw.js';
import { startHttp } from '../helpers/servers.js';
import { serviceRegistries } from '../../services/registries.js';

const run = promisify(execFile);
const REALM = 'hub.test';

async function fetchJson(url: string, init?: RequestInit): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const text = await res.text();
  return { res, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

t.test('control /status/{code}: the same status with the headers the code requires', async (t) => {
  const { port } = await startHttp(t, 'control');
  const base = `http://127.0.0.1:${port}`;
  for (const code of [200, 201, 400, 404, 418, 429, 500, 503, 599]) {
    const { res, body } = await fetchJson(`${base}/status/${code}`);
    t.equal(res.status, code);
    t.same(body, { endpoint: '/status/{code}', status: code, reason: body.reason });
    t.equal(res.headers.get('x-chaos-origin'), 'control');
    t.equal(res.headers.get('x-chaos-counterpart'), `http://chaos.test:8080/status/${code}`, 'the twin is named by the concrete path');
  }
  t.equal((await fetchJson(`${base}/status/302`)).res.headers.get('location'), 'http://control.test:8080/status/200');
  t.equal((await fetchJson(`${base}/status/401`)).res.headers.get('www-authenticate'), `Basic realm="${REALM}"`);
  // fetch turns any 407 into a network error (Fetch standard), so this one is read raw.
  t.equal((await exchange(port, get('/status/407'))).response.header('proxy-authenticate'), `Basic realm="${REALM}"`);
  const upgrade = await fetchJson(`${base}/status/426`);
  t.equal(upgrade.res.headers.get('upgrade'), 'HTTP/2.0');
  t.equal((await fetchJson(`${base}/status/405`)).res.headers.get('allow'), 'GET, HEAD');
  const refused = await fetchJson(`${base}/status/101`);
  t.equal(refused.res.status, 400);
  t.match(refused.body, { endpoint: '/status/{code}', error: 'protocol_switching_status', requested: 101 });
  const clamped = await fetchJson(`${base}/status/1000`);
  t.equal(clamped.res.status, 599);
  t.equal(clamped.res.headers.get('x-chaos-clamped'), 'code=599');
  t.equal((await fetchJson(`${base}/status/abc`)).res.status, 400);
});

t.test('control /status: 204/304 bodiless and 205 empty on a keep-alive connection; 1xx as a real interim', async (t) => {
  const { port } = await startHttp(t, 'control');
  const { exchanges } = await pipelined(port, [get('/status/204'), get('/status/304'), get('/status/205'), get('/status/200')]);
  t.same(
    exchanges.map((e) => e.response.status),
    [204, 304, 205, 200],
  );
  t.equal(exchanges[0]?.response.header('content-length'), undefined);
  t.equal(exchanges[0]?.response.header('transfer-encoding'), undefined);
  t.equal(exchanges[2]?.response.header('content-length'), '0');
  for (const code of [100, 102, 103]) {
    const ex = await exchange(port, get(`/status/${code}`));
    t.equal(ex.interims[0]?.status, code, `${code}: interim head`);
    t.equal(ex.response.status, 200);
    t.match(json(ex), { interim_status: code, interim_sent: true });
  }
  const unassigned = await exchange(port, get('/status/150'));
  t.equal(unassigned.interims.length, 0, 'no interim for a 1xx node:http cannot send');
  t.match(json(unassigned), { status: 200, interim_status: 150, interim_sent: false });
});

t.test('control /flaky never fails', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (let i = 0; i < 40; i++) {
    const { res, body } = await fetchJson(`http://127.0.0.1:${port}/flaky?p=1&status=503&seed=s${i}`);
    t.equal(res.status, 200);
    t.same(body, { endpoint: '/flaky', failed: false, status: 200, reason: 'OK', probability: 1, seed: `s${i}` });
  }
  t.equal((await fetchJson(`http://127.0.0.1:${port}/flaky?status=101`)).res.status, 400, 'same parameter rules as the chaos host');
});

t.test('control /rate-limit: a 429 whose Retry-After is the truth, lie or not', async (t) => {
  const { port } = await startHttp(t, 'control');
  const { res, body } = await fetchJson(`http://127.0.0.1:${port}/rate-limit?lie=true&retry_after=120`);
  t.equal(res.status, 429);
  t.equal(res.headers.get('retry-after'), '120');
  t.equal(res.headers.get('x-ratelimit-limit'), '60');
  t.equal(res.headers.get('x-ratelimit-remaining'), '0');
  t.equal(res.headers.get('x-ratelimit-reset'), '120');
  t.match(body, { retry_after: 120, retry_after_header: 120, lied: false });
  const { stdout } = await run('curl', ['-si', '--max-time', '5', `http://127.0.0.1:${port}/rate-limit?lie=true`]);
  t.match(stdout, /\r\nRetry-After: 60\r\n/, 'curl sees the true Retry-After');
});

t.test('control /retry-mismatch is idempotent: version 1 data every time', async (t) => {
  const { port } = await startHttp(t, 'control');
  const bodies = [];
  for (let i = 0; i < 3; i++) bodies.push((await fetchJson(`http://127.0.0.1:${port}/retry-mismatch?id=order-17`)).body);
  for (const body of bodies) t.same(body, retryBody('order-17', 1));
  t.equal((await fetchJson(`http://127.0.0.1:${port}/retry-mismatch`)).res.status, 400, 'id is required here too');
});

t.test('control /auth-required accepts only the documented test credentials', async (t) => {
  const { port } = await startHttp(t, 'control');
  const url = `http://127.0.0.1:${port}/auth-required`;
  const basic = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

  const missing = await fetchJson(url);
  t.equal(missing.res.status, 401);
  t.equal(missing.res.headers.get('www-authenticate'), `Basic realm="${REALM}"`);
  t.equal((await fetchJson(url, { headers: { Authorization: basic('chaos', 'wrong') } })).res.status, 401, 'wrong password');
  t.equal((await fetchJson(url, { headers: { Authorization: 'garbage' } })).res.status, 401, 'not credentials');
  t.equal((await fetchJson(url, { headers: { Authorization: 'Bearer control-token' } })).res.status, 401, 'another scheme');
  const ok = await fetchJson(url, { headers: { Authorization: basic('chaos', 'control') } });
  t.equal(ok.res.status, 200);
  t.match(ok.body, { authenticated: true, scheme: 'basic' });
  t.equal((await fetchJson(url, { headers: { Authorization: basic('chaos', 'control').replace('Basic', 'basic') } })).res.status, 200, 'scheme name is case-insensitive');

  const bearer = await fetchJson(`${url}?scheme=bearer`);
  t.equal(bearer.res.headers.get('www-authenticate'), `Bearer realm="${REALM}"`);
  t.equal((await fetchJson(`${url}?scheme=bearer`, { headers: { Authorization: 'Bearer control-token' } })).res.status, 200);
  t.equal((await fetchJson(`${url}?scheme=bearer`, { headers: { Authorization: 'Bearer other' } })).res.status, 401);

  const none = await fetchJson(`${url}?scheme=none`);
  t.equal(none.res.status, 401);
  t.equal(none.res.headers.get('www-authenticate'), `Basic realm="${REALM}"`, 'a 401 must carry a challenge: none falls back to Basic');

  const realm = await fetchJson(`${url}?realm=My%20Realm!`);
  t.equal(realm.res.headers.get('www-authenticate'), 'Basic realm="My Realm"');
});

t.test('control /auth-required digest: SHA-256 and MD5 challenges, a valid response passes', async (t) => {
  const { port } = await startHttp(t, 'control');
  const target = '/auth-required?scheme=digest';
  const challenge = await exchange(port, get(target));
  const { nonce, opaque } = digestNonce(REALM);
  t.same(challenge.response.headers('www-authenticate'), [
    `Digest realm="${REALM}", qop="auth", algorithm=SHA-256, nonce="${nonce}", opaque="${opaque}"`,
    `Digest realm="${REALM}", qop="auth", algorithm=MD5, nonce="${nonce}", opaque="${opaque}"`,
  ]);
  for (const [algorithm, name] of [['SHA-256', 'sha256'], ['MD5', 'md5']] as const) {
    const h = (s: string): string => createHash(name).update(s).digest('hex');
    const authorize = (password: string): string => {
      const response = h(`${h(`chaos:${REALM}:${password}`)}:${nonce}:00000001:abcdef:auth:${h(`GET:${target}`)}`);
      return `Digest username="chaos", realm="${REALM}", nonce="${nonce}", uri="${target}", algorithm=${algorithm}, qop=auth, nc=00000001, cnonce="abcdef", response="${response}", opaque="${opaque}"`;
    };
    const good = await exchange(port, get(target, { Authorization: authorize('control') }));
    t.equal(good.response.status, 200, `${algorithm}: the right password`);
    const bad = await exchange(port, get(target, { Authorization: authorize('nope') }));
    t.equal(bad.response.status, 401, `${algorithm}: a wrong password`);
  }
  const { stdout } = await run('curl', ['-s', '--max-time', '5', '--digest', '-u', 'chaos:control', `http://127.0.0.1:${port}${target}&x=1`]);
  t.match(stdout, /"authenticated":true/, 'curl --digest authenticates');
});

t.test('control /random: a deterministic pick among the twins, default seed 42', async (t) => {
  const { port } = await startHttp(t, 'control');
  const pool = randomPool(serviceRegistries().control);
  for (const seed of ['42', 'a', 'b', 'é']) {
    const query = seed === '42' ? '/random' : `/random?seed=${encodeURIComponent(seed)}`;
    const a = await exchange(port, get(query));
    const b = await exchange(port, get(query));
    const expected = pickFor(pool, seed);
    t.equal(a.response.header('x-chaos-random-from'), expected.path, `${seed}: the pick`);
    t.equal(b.response.statusLine, a.response.statusLine);
    t.ok(b.body.equals(a.body), `${seed}: same body twice`);
    t.equal(a.response.header('x-chaos-origin'), 'control');
  }
  for (let i = 0; i < 500; i++) {
    const path = pickFor(pool, `c${i}`).endpoint.path;
    if (['/slow', '/drip', '/partial-stream', '/random'].includes(path)) t.fail(`picked ${path}`);
  }
});
