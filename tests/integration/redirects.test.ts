// The redirects category: /redirect-chain, /redirect-loop, /redirect-kinds
// and its target, /redirect-location and its final page, /redirect-cross-host:
// raw bytes on the chaos host, the twins' well-formed redirects on control
// (the shared case list runs /redirect-chain against both hosts), and what
// curl -L makes of both.
import t from 'tap';
import { LOCATION_MODES, REDIRECT_CODES, controlByOtherName } from '../../shared/content/redirects.js';
import { ChaosServer } from '../../services/chaos/server.js';
import type { Config } from '../../shared/config/config.js';
import { HttpService } from '../../shared/http/http-service.js';
import { createLogger } from '../../shared/config/log.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { rawExchange } from '../helpers/raw.js';
import { assertParamError, call, curl, json } from '../helpers/replies.js';
import { assertParamError as assertPlainParamError, parses, sharedCases } from '../helpers/format-cases.js';
import { freePorts, startChaos, startHttp, stopAtTeardown, testConfig } from '../helpers/servers.js';
import { serviceRegistries } from '../../services/registries.js';

// ---------------------------------------------------------------- /redirect-loop

t.test('/redirect-loop: a true cycle of n URLs; curl -L gives up with exit 47; the twin resolves', async (t) => {
  const { port } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  const first = await call(port, '/redirect-loop');
  t.match(first.headText, /^HTTP\/1\.1 302 Found\r\n/);
  t.match(first.headText, /\r\nLocation: \/redirect-loop\?n=2&at=1\r\n/, 'default n=2: position 0 points to 1');
  t.match(first.headText, /\r\nX-Chaos-Redirect-Loop-At: 0\r\n/);
  t.match(json(first), { endpoint: '/redirect-loop', n: 2, at: 0, location: '/redirect-loop?n=2&at=1', resolves: false });
  t.equal(first.body.length, Number(first.res.header('content-length')), 'honest framing');

  for (const n of [1, 3, 10]) {
    // Following by hand: after n hops the chain is back where it started, and never a 200.
    let path = `/redirect-loop?n=${n}&at=0`;
    const seen: string[] = [];
    for (let hop = 0; hop < n; hop++) {
      const r = await call(port, path);
      t.equal(r.res.status, 302, `n=${n} hop ${hop}: 302`);
      seen.push(path);
      path = r.res.header('location') ?? '';
    }
    t.equal(path, `/redirect-loop?n=${n}&at=0`, `n=${n}: back at the start after ${n} hops`);
    t.equal(new Set(seen).size, n, `n=${n}: ${n} distinct URLs`);
  }
  const self = await call(port, '/redirect-loop?n=1');
  t.equal(self.res.header('location'), '/redirect-loop?n=1&at=0', 'n=1 points at itself');
  const wrapped = await call(port, '/redirect-loop?n=3&at=7');
  t.equal(wrapped.res.header('location'), '/redirect-loop?n=3&at=2', 'a position past n is taken modulo n (7 mod 3 = 1, next 2)');
  const clamped = await call(port, '/redirect-loop?n=50');
  t.equal(clamped.res.header('x-chaos-clamped'), 'n=10');
  t.equal(clamped.res.header('location'), '/redirect-loop?n=10&at=1');

  const loop = await curl(['-L', '-o', '/dev/null', `http://127.0.0.1:${port}/redirect-loop?n=3`]);
  t.equal(loop.code, 47, 'curl -L: exit 47');
  t.match(loop.stderr, /Maximum \(50\) redirects followed/);

  // The twin: the same n URLs as a chain that ends.
  const resolved = await curl(['-L', '-w', '%{http_code} %{num_redirects}', '-o', '/dev/null', `http://127.0.0.1:${control}/redirect-loop?n=3`]);
  t.equal(resolved.code, 0, 'control: curl -L resolves');
  t.equal(resolved.stdout, '200 3', 'control: 3 redirects, then 200');
  const hop = await call(control, '/redirect-loop?n=3&at=1');
  t.equal(hop.res.status, 302);
  t.equal(hop.res.header('location'), '/redirect-loop?n=3&at=2');
  const end = await call(control, '/redirect-loop?n=3&at=3');
  t.equal(end.res.status, 200);
  t.match(json(end), { endpoint: '/redirect-loop', n: 3, resolves: true });

  assertParamError(t, await call(port, '/redirect-loop?n=two'), '/redirect-loop', 'n', 'two');
  assertParamError(t, await call(port, '/redirect-loop?at=x'), '/redirect-loop', 'at', 'x');
  assertParamError(t, await call(control, '/redirect-loop?n=two'), '/redirect-loop', 'n', 'two');
});

// ---------------------------------------------------------------- /redirect-kinds

t.test('/redirect-kinds: each code to the target on GET and POST; the target reports method and body', async (t) => {
  const { port } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  for (const code of REDIRECT_CODES) {
    for (const [method, body] of [['GET', ''], ['POST', 'a=1'], ['HEAD', '']] as const) {
      for (const [host, p] of [['chaos', port], ['control', control]] as const) {
        const r = await call(p, `/redirect-kinds?code=${code}`, method, body);
        t.equal(r.res.status, Number(code), `${host} ${method} code=${code}: status`);
        t.same(r.res.headers('location'), [`/redirect-kinds/target?code=${code}`], `${host} ${method} code=${code}: one Location`);
        if (method === 'HEAD') t.equal(r.res.rest.length, 0, `${host} HEAD: no body`);
        else t.match(json(r), { endpoint: '/redirect-kinds', code: Number(code), method, location: `/redirect-kinds/target?code=${code}` });
        if (host === 'chaos') {
          t.equal(r.res.header('x-chaos-redirect-code'), code);
          t.equal(r.res.header('x-chaos-request-method'), method);
        }
      }
    }
  }
  // What curl does with a POST on each code, as the target reports it.
  const rewritten: Record<string, string> = { '301': 'GET', '302': 'GET', '303': 'GET', '307': 'POST', '308': 'POST' };
  for (const code of REDIRECT_CODES) {
    for (const [host, p] of [['chaos', port], ['control', control]] as const) {
      const r = await curl(['-L', '-d', 'a=1', `http://127.0.0.1:${p}/redirect-kinds?code=${code}`]);
      t.equal(r.code, 0);
      const report = JSON.parse(r.stdout) as Record<string, unknown>;
      const method = rewritten[code] as string;
      t.match(report, { endpoint: '/redirect-kinds/target', method, redirected_by: Number(code) }, `${host} curl -L POST code=${code}: arrives as ${method}`);
      t.equal(report.body, method === 'POST' ? 'a=1' : '', `${host} code=${code}: the body ${method === 'POST' ? 'kept' : 'dropped'}`);
      t.equal(report.body_bytes, method === 'POST' ? 3 : 0);
    }
  }
  // The target's bound: the first 1024 bytes reported, all counted.
  const big = 'x'.repeat(3000);
  for (const [host, p] of [['chaos', port], ['control', control]] as const) {
    const r = await call(p, '/redirect-kinds/target', 'PUT', big, { 'Content-Type': 'text/plain' });
    t.equal(r.res.status, 200);
    t.equal(r.res.header('cache-control'), 'no-store');
    t.same(json(r), {
      endpoint: '/redirect-kinds/target', method: 'PUT', redirected_by: null, content_type: 'text/plain',
      body_bytes: 3000, body: 'x'.repeat(1024), body_truncated: true,
    }, `${host}: 1024 bytes reported, 3000 counted`);
  }
  const pipelined = await rawExchange(port, [
    `POST /redirect-kinds/target?code=307 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello`,
    `GET /redirect-kinds/target HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
  ]);
  const text = pipelined.data.toString('latin1');
  t.equal(text.match(/HTTP\/1\.1 200 OK/g)?.length, 2, 'the body was consumed, not taken for a request');
  t.match(text, /"method":"POST","redirected_by":307,"content_type":null,"body_bytes":5,"body":"hello"/);

  assertParamError(t, await call(port, '/redirect-kinds?code=304'), '/redirect-kinds', 'code', '304');
  assertParamError(t, await call(control, '/redirect-kinds?code=304', 'POST', 'a'), '/redirect-kinds', 'code', '304');
  assertParamError(t, await call(port, '/redirect-kinds/target?code=abc'), '/redirect-kinds/target', 'code', 'abc');
  t.equal((await call(port, '/redirect-kinds', 'OPTIONS')).res.status, 405, 'OPTIONS is not served: the router 405');
});

// ---------------------------------------------------------------- /redirect-location

t.test('/redirect-location: each mode exactly as documented; the twin is always well-formed', async (t) => {
  const config = testConfig();
  const { port } = await startChaos(t, { config });
  const { port: control } = await startHttp(t, 'control', config);
  const expected: Record<string, string | null> = {
    relative: 'redirect-location/final?from=relative',
    'protocol-relative': '//chaos.test:8080/redirect-location/final?from=protocol-relative',
    'dot-segments': '/redirect-location/./a/b/../../final?from=dot-segments',
    missing: null,
    malformed: 'http://chaos.test:99999/redirect location/final?from=malformed&x=%0D%0A',
    'non-http': 'ftp://chaos.test/redirect-location/final',
    fragment: '/redirect-location/final?from=fragment#resolved',
    'absolute-other-host': 'http://control.test:8080/redirect-location/final?from=absolute-other-host',
  };
  for (const mode of LOCATION_MODES) {
    const r = await call(port, `/redirect-location?mode=${mode}`);
    t.match(r.headText, /^HTTP\/1\.1 302 Found\r\n/, `${mode}: 302`);
    t.equal(r.res.header('x-chaos-redirect-location-mode'), mode);
    const want = expected[mode] ?? null;
    if (want === null) t.notOk(/\r\nLocation:/i.test(r.headText), `${mode}: no Location line`);
    else t.ok(r.headText.includes(`\r\nLocation: ${want}\r\n`), `${mode}: Location: ${want}, byte for byte`);
    t.match(json(r), { endpoint: '/redirect-location', mode, location: want, note: String });

    const twin = await call(control, `/redirect-location?mode=${mode}`);
    t.equal(twin.res.status, 302, `control ${mode}: 302`);
    t.same(twin.res.headers('location'), [`/redirect-location/final?from=${mode}`], `control ${mode}: a well-formed Location`);
    const final = await call(control, twin.res.header('location') ?? '');
    t.equal(final.res.status, 200, `control ${mode}: the Location resolves`);
    t.same(json(final), { endpoint: '/redirect-location/final', from: mode, message: 'redirect resolved' });
  }
  // Resolved as RFC 3986 says, the followable ones land on the final page.
  const base = 'http://chaos.test:8080/redirect-location?mode=x';
  for (const mode of ['relative', 'protocol-relative', 'dot-segments', 'fragment'] as const) {
    const url = new URL(expected[mode] as string, base);
    t.equal(url.host, 'chaos.test:8080', `${mode}: resolves on the chaos host`);
    t.equal(url.pathname, '/redirect-location/final', `${mode}: resolves to the final page`);
    const final = await call(port, url.pathname + url.search);
    t.equal(final.res.status, 200);
    t.match(json(final), { from: mode });
  }
  t.equal(new URL(expected['fragment'] as string, base).hash, '#resolved');
  t.equal(new URL(expected['absolute-other-host'] as string, base).host, 'control.test:8080', 'absolute-other-host: the control host');
  t.throws(() => new URL(expected['malformed'] as string), 'malformed: not a URL (port above 65535)');
  const js = await call(port, '/redirect-location?mode=non-http&scheme=javascript');
  t.ok(js.headText.includes('\r\nLocation: javascript:void(0)\r\n'), 'scheme=javascript');
  // curl -L stops at what it cannot follow.
  const missing = await curl(['-L', '-w', '%{http_code}', '-o', '/dev/null', `http://127.0.0.1:${port}/redirect-location?mode=missing`]);
  t.same([missing.code, missing.stdout], [0, '302'], 'missing: curl -L has nothing to follow, ends on the 302');
  const ftp = await curl(['-L', '--proto-redir', '=http,https', '-o', '/dev/null', `http://127.0.0.1:${port}/redirect-location?mode=non-http`]);
  t.equal(ftp.code, 1, 'non-http: curl refuses the ftp redirect (unsupported protocol)');

  assertParamError(t, await call(port, '/redirect-location?mode=broken'), '/redirect-location', 'mode', 'broken');
  assertParamError(t, await call(port, '/redirect-location?mode=non-http&scheme=gopher'), '/redirect-location', 'scheme', 'gopher');
  assertParamError(t, await call(control, '/redirect-location/final?from=nowhere'), '/redirect-location/final', 'from', 'nowhere');
});

// ---------------------------------------------------------------- /redirect-cross-host

/** Chaos and control on ports their public URLs name, so absolute Locations can be followed. */
async function startCrossHosts(tt: Parameters<typeof stopAtTeardown>[0]): Promise<{ config: Config; chaos: number; control: number }> {
  const [chaos, control] = (await freePorts(2)) as [number, number];
  const config = testConfig({ PUBLIC_BASE_URL: `http://127.0.0.1:${chaos}`, PUBLIC_CONTROL_URL: `http://127.0.0.1:${control}` });
  const chaosStore = new MemoryStore();
  const server = new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: serviceRegistries().chaos, store: chaosStore });
  stopAtTeardown(tt, server, chaosStore);
  await server.listen(chaos, '127.0.0.1');
  const controlStore = new MemoryStore();
  const service = new HttpService({ host: 'control', config, logger: createLogger('control', 'silent'), registry: serviceRegistries().control, store: controlStore });
  stopAtTeardown(tt, service, controlStore);
  await service.listen(control, '127.0.0.1');
  return { config, chaos, control };
}

t.test('/redirect-cross-host: absolute hops alternating between the hosts, resolving on control', async (t) => {
  const { chaos, control } = await startCrossHosts(t);
  const chaosUrl = `http://127.0.0.1:${chaos}`;
  const controlUrl = `http://127.0.0.1:${control}`;
  const first = await call(chaos, '/redirect-cross-host?hops=2');
  t.match(first.headText, /^HTTP\/1\.1 302 Found\r\n/);
  t.same(first.res.headers('location'), [`${controlUrl}/redirect-cross-host?hops=1&alternate=true`]);
  t.equal(first.res.header('x-chaos-redirect-remaining'), '2');
  const back = await call(control, '/redirect-cross-host?hops=1&alternate=true');
  t.same(back.res.headers('location'), [`${chaosUrl}/redirect-cross-host?hops=1`], 'control sends an alternate hop back to chaos');

  const r = await curl(['-L', '-w', '\n%{http_code} %{num_redirects} %{url_effective}', `${chaosUrl}/redirect-cross-host?hops=3`]);
  t.equal(r.code, 0);
  const cut = r.stdout.lastIndexOf('\n');
  const [body, summary] = [r.stdout.slice(0, cut), r.stdout.slice(cut + 1)];
  t.equal(summary, `200 5 ${controlUrl}/redirect-cross-host?hops=0&alternate=true`, 'hops=3: 5 redirects, the 200 on control');
  t.same(JSON.parse(body), { endpoint: '/redirect-cross-host', host: 'control', hops: 0, message: 'redirect chain resolved' });
  const trace = await curl(['-L', '-s', '-o', '/dev/null', '-D', '-', `${chaosUrl}/redirect-cross-host?hops=3`]);
  const locations = [...trace.stdout.matchAll(/\r\nLocation: (\S+)\r\n/g)].map((m) => new URL(m[1] as string).port);
  t.same(locations, [control, chaos, control, chaos, control].map(String), 'every hop crosses hosts');

  const twin = await curl(['-L', '-w', '%{http_code} %{num_redirects} %{url_effective}', '-o', '/dev/null', `${controlUrl}/redirect-cross-host?hops=3`]);
  t.equal(twin.stdout, `200 3 ${controlUrl}/redirect-cross-host?hops=0`, 'the twin: 3 hops on control, then 200');
  const clamped = await call(chaos, '/redirect-cross-host?hops=0');
  t.equal(clamped.res.header('x-chaos-clamped'), 'hops=1', 'chaos crosses at least once');
  assertParamError(t, await call(chaos, '/redirect-cross-host?hops=many'), '/redirect-cross-host', 'hops', 'many');
  assertParamError(t, await call(control, '/redirect-cross-host?alternate=perhaps'), '/redirect-cross-host', 'alternate', 'perhaps');
});

t.test('/redirect-cross-host?cookie=true: a host-only cookie, and the hop to the control process by another host name', async (t) => {
  const { chaos, control } = await startCrossHosts(t);
  const plain = await call(chaos, '/redirect-cross-host?hops=1');
  t.same(plain.res.headers('set-cookie'), [], 'no cookie unless asked');
  const hop = await call(chaos, '/redirect-cross-host?hops=1&cookie=true');
  t.same(hop.res.headers('set-cookie'), ['chaos_hop=1; Path=/; HttpOnly; SameSite=Lax'], 'no Domain: host-only');
  // Chaos and control both 127.0.0.1 here: cookies ignore ports, so the hop goes to the hub's name of the control process.
  t.same(hop.res.headers('location'), ['http://hub.test:8080/redirect-cross-host?hops=0&alternate=true']);
  const named = testConfig({ PUBLIC_BASE_URL: `http://127.0.0.1:${chaos}`, PUBLIC_CONTROL_URL: `http://localhost:${control}` });
  t.equal(controlByOtherName(named), `http://localhost:${control}`, 'a control host of its own name is used as it is');
});

// ---------------------------------------------------------------- /redirect-chain

t.test('GET /redirect-chain: 302 with an exact relative Location until n is 0, then 200 resolved', async (t) => {
  const { port } = await startChaos(t);
  for (let n = 1; n <= 20; n++) {
    const { res, body } = await call(port, `/redirect-chain?n=${n}`);
    t.equal(res.status, 302, `n=${n}: 302`);
    t.same(res.headers('location'), [`/redirect-chain?n=${n - 1}`], `n=${n}: Location is exactly /redirect-chain?n=${n - 1}`);
    t.equal(res.header('x-chaos-redirect-remaining'), String(n));
    t.ok(parses(body), 'hop body is JSON');
  }
  const final = await call(port, '/redirect-chain?n=0');
  t.equal(final.res.status, 200);
  t.equal(final.res.header('x-chaos-redirect-chain'), 'resolved');
  t.same(final.res.headers('location'), [], 'no Location at the end');
  t.same(JSON.parse(final.body.toString('utf8')), { endpoint: '/redirect-chain', message: 'redirect chain resolved', hops_completed: true });

  const byDefault = await call(port, '/redirect-chain');
  t.equal(byDefault.res.header('location'), '/redirect-chain?n=2', 'default n is 3');

  const high = await call(port, '/redirect-chain?n=21');
  t.equal(high.res.header('location'), '/redirect-chain?n=19', 'n above 20 is clamped to 20');
  t.equal(high.res.header('x-chaos-clamped'), 'n=20');
  const low = await call(port, '/redirect-chain?n=-1');
  t.equal(low.res.status, 200, 'n below 0 is clamped to 0');
  t.equal(low.res.header('x-chaos-clamped'), 'n=0');
  t.equal(low.res.header('x-chaos-redirect-chain'), 'resolved');
  assertPlainParamError(t, await call(port, '/redirect-chain?n=three'), '/redirect-chain', 'n', 'three');

  // Following by hand from the top: 20 hops, then 200 (bounded).
  let path = '/redirect-chain?n=20';
  let hops = 0;
  for (; hops < 25; hops++) {
    const { res } = await call(port, path);
    if (res.status !== 302) break;
    path = res.header('location') ?? '';
  }
  t.equal(hops, 20, 'twenty hops from n=20');
  t.equal(path, '/redirect-chain?n=0');
});

t.test('shared cases (redirect chain): the same paths answer on both hosts; chaos lies, control is well-formed', (t) =>
  sharedCases(t, (c) => c.chaos.startsWith('/redirect-chain')));

t.test('control twins: /redirect-chain, exact well-formed answers and the same parameter rules', async (t) => {
  const { port } = await startHttp(t, 'control');
  const hop = await call(port, '/redirect-chain?n=2');
  t.equal(hop.res.status, 302);
  t.equal(hop.res.header('location'), '/redirect-chain?n=1');
  const end = await call(port, '/redirect-chain?n=0');
  t.equal(end.res.status, 200);
  t.same(JSON.parse(end.body.toString('utf8')), { endpoint: '/redirect-chain', message: 'redirect chain resolved', hops_completed: true });
  assertPlainParamError(t, await call(port, '/redirect-chain?n=x'), '/redirect-chain', 'n', 'x');
});

t.test('curl sees the headline lies: /redirect-chain', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const url = (path: string, p = port): string => `http://127.0.0.1:${p}${path}`;
  for (const [host, p] of [['chaos', port], ['control', controlPort]] as const) {
    const follow = await curl(['-L', '-o', '/dev/null', '-w', '%{http_code} %{num_redirects} %{url_effective}', url('/redirect-chain', p)]);
    t.equal(follow.stdout, `200 3 ${url('/redirect-chain?n=0', p)}`, `${host}: curl -L follows 3 hops to the final 200`);
  }
  const long = await curl(['-L', '-o', '/dev/null', '-w', '%{http_code} %{num_redirects}', url('/redirect-chain?n=20')]);
  t.equal(long.stdout, '200 20', 'curl -L follows the longest chain, 20 hops');
  const limited = await curl(['-L', '--max-redirs', '2', '-o', '/dev/null', url('/redirect-chain?n=5')]);
  t.equal(limited.code, 47, 'a client limited to 2 redirects gives up on a 5-hop chain (curl exit 47)');
});
