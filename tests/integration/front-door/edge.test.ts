// The edge itself (issue 25): what HAProxy answers on its own, which first
// heads it routes (late, large, odd), pipelining through it, and what many
// idle addresses can hold. Real haproxy and Redis, on free loopback ports;
// one replica of each service (REPLICAS=1), as the edge is what is tested.
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { BUFFER_BYTES, EDGE_ERRORS, EXAMPLE_PLAN, HOST_REQUIRED, LARGEST_CHAOS_HEAD, REQUEST_HEAD_MS, edgeCaps, renderHaproxyConfig } from '../../../proxy/haproxy-config.js';
import { DEFAULT_LIMITS } from '../../../services/chaos/parser.js';
import { CONNECTION_DEFAULTS } from '../../../services/chaos/server.js';
import { ERROR_CODES } from '../../../shared/registry/errors.js';
import { startHaproxy } from '../../helpers/haproxy.js';
import { freePort } from '../../helpers/process.js';
import { get, parseHead, rawExchange, splitResponses, type ParsedResponse, type RawResult } from '../../helpers/raw.js';
import { startStack, type Stack } from '../../helpers/stack.js';

// Four stacks (HAProxy, Redis, replicas) one after another and heads typed over 25 s: 77-100 s on a shared
// machine, once 133 s at load 12; bounded, with room over tap's 120 s default.
t.setTimeout(240_000);

/** A real error of ours: JSON `{error, reason}` with the status's code, and no X-Chaos-* line. */
function isRealError(t: Test, res: RawResult, status: number, name: string): ParsedResponse {
  const head = parseHead(res.data);
  t.equal(head.status, status, `${name}: ${status}`);
  t.match(head.header('content-type') ?? '', /^application\/json/, `${name}: JSON`);
  t.notOk(head.headerLines.some(([n]) => /^x-chaos-/i.test(n)), `${name}: no X-Chaos-* line`);
  const body = JSON.parse(head.rest.toString('latin1')) as { error?: unknown; reason?: unknown };
  t.equal(body.error, ERROR_CODES[status as keyof typeof ERROR_CODES], `${name}: error code`);
  t.type(body.reason, 'string', `${name}: a reason`);
  return head;
}

t.test('the edge reads every first head the chaos replica accepts, and waits as long as it does', async (t) => {
  t.equal(REQUEST_HEAD_MS, CONNECTION_DEFAULTS.requestTimeoutMs, "the slow-head wait is the chaos replica's head time");
  t.equal(LARGEST_CHAOS_HEAD, DEFAULT_LIMITS.maxRequestLine + DEFAULT_LIMITS.maxHeaderBytes + 6, 'the largest head the replica takes');
  // HAProxy 2.6 reads a head as HTTP in mode tcp when it fits in about three quarters of a buffer.
  t.ok(BUFFER_BYTES * 0.72 > LARGEST_CHAOS_HEAD, `a ${BUFFER_BYTES}-byte buffer reads a ${LARGEST_CHAOS_HEAD}-byte head`);
  const text = renderHaproxyConfig(EXAMPLE_PLAN);
  t.match(text, `tune.bufsize ${BUFFER_BYTES}`);
  t.match(text, /frontend fe_edge[\s\S]*tcp-request inspect-delay 5000ms/, 'fe_edge waits FIRST_REQUEST_TIMEOUT_MS');
  t.match(text, /frontend fe_slow[\s\S]*tcp-request inspect-delay 10000ms/, 'fe_slow waits the head time more');
  const caps = edgeCaps(EXAMPLE_PLAN);
  t.same(caps, { perAddress: 64, perNetwork: 256, crowded: 15_000, slowHeads: 5_000 });
  t.match(text, /track-sc1 src,ipmask\(24,64\) table st_networks/, 'networks are tracked: IPv4 /24, IPv6 /64');
  t.match(text, /reject if \{ sc_conn_cur\(1\) gt 256 \}/, 'the per-network cap');
  t.match(text, /reject if \{ fe_conn gt 15000 \} \{ sc_conn_cur\(1\) gt 64 \}/, 'a crowded edge admits no more from a network holding the per-address cap');
  t.notMatch(renderHaproxyConfig({ ...EXAMPLE_PLAN, maxConnectionsPerIp: 0 }), /track-sc|st_networks/, 'no caps when MAX_CONNECTIONS_PER_IP=0');
});

const closing = (path: string, host: string): string => get(path, { Host: host, Connection: 'close' });

/** A request line of exactly `length` bytes (CRLF excluded) for `path?aaa…`. */
function lineOf(length: number, path = '/status/200'): string {
  const prefix = `GET ${path}?`;
  const suffix = ' HTTP/1.1';
  return `${prefix}${'a'.repeat(length - prefix.length - suffix.length)}${suffix}`;
}

/** The largest head the chaos replica accepts: an 8 KiB line and 100 fields filling 16 KiB. */
function largestHead(host: string): string {
  const fields = [`Host: ${host}`, 'Connection: close'];
  const fill = DEFAULT_LIMITS.maxHeaderBytes + 2 - fields.reduce((n, f) => n + f.length + 2, 0);
  const count = DEFAULT_LIMITS.maxHeaderCount - fields.length;
  for (let i = 0; i < count; i++) {
    const size = Math.floor(fill / count) + (i < fill % count ? 1 : 0);
    fields.push(`X-F${String(i).padStart(3, '0')}: ${'v'.repeat(size - 8 - 2)}`);
  }
  return `${lineOf(DEFAULT_LIMITS.maxRequestLine)}\r\n${fields.join('\r\n')}\r\n\r\n`;
}

/** Writes `parts` with pauses between them (a head typed by hand), then collects as rawExchange does. */
function typed(port: number, parts: readonly (string | number)[], timeoutMs: number): Promise<RawResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const start = performance.now();
    let done = false;
    const socket = net.connect({ port, host: '127.0.0.1' });
    const finish = (end: RawResult['end']): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), end, arrivals: [], elapsedMs: performance.now() - start });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish('fin'));
    socket.on('error', () => finish('reset'));
    socket.on('connect', async () => {
      for (const part of parts) {
        if (typeof part === 'number') await sleep(part);
        else if (!done) socket.write(part, 'latin1');
      }
    });
  });
}

t.test('first heads at the front door (limits off)', async (t) => {
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '0', REPLICAS: '1' });
  const chaosHost = new URL(stack.urls.chaos).host;
  const controlHost = new URL(stack.urls.control).host;
  // The two timed checks (5 s of silence; heads typed over up to 25 s) start first and run beside the others.
  const silent = rawExchange(stack.front, '', { timeoutMs: 12_000 });
  const typedHeads = Promise.all([
    typed(stack.front, ['GET /status/200 HTTP/1.1\r\n', 3000, `Host: ${chaosHost}\r\n`, 4000, 'Connection: close\r\n\r\n'], 20_000),
    typed(stack.front, ['GET /status/200 HTTP/1.1\r\n', 6000, `Host: ${controlHost}\r\n`, 6000, 'Connection: close\r\n\r\n'], 20_000),
    typed(stack.front, ['GET /status/200 HTTP/1.1\r\n', 1000, `Host: ${chaosHost}\r\n`], 35_000),
  ]);

  await t.test("oversized and odd first requests get the chaos replica's answers", async (t) => {
    const largest = await rawExchange(stack.front, largestHead(chaosHost), { timeoutMs: 8000 });
    t.equal(parseHead(largest.data).header('x-chaos-endpoint'), '/status/{code}', `the largest head the replica accepts (${largestHead(chaosHost).length} bytes) is served by it`);
    for (const length of [8100, 8150, DEFAULT_LIMITS.maxRequestLine]) {
      const res = await rawExchange(stack.front, `${lineOf(length)}\r\nHost: ${chaosHost}\r\nConnection: close\r\n\r\n`, { timeoutMs: 8000 });
      t.equal(parseHead(res.data).status, 200, `a ${length}-byte request line is served by the chaos replica`);
    }
    const nearly16k = (host: string): string => `GET /status/200 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nX-Big: ${'b'.repeat(15_900)}\r\n\r\n`;
    t.equal(parseHead((await rawExchange(stack.front, nearly16k(chaosHost), { timeoutMs: 8000 })).data).status, 200, 'a 15.9 KiB head is served');
    // Read whole, such heads are routed by their Host (with HAProxy's default buffer they went to chaos, which said 421).
    for (const [name, request] of [
      ['an 8150-byte request line', `${lineOf(8150)}\r\nHost: ${controlHost}\r\nConnection: close\r\n\r\n`],
      ['a 15.9 KiB head', nearly16k(controlHost)],
    ] as const) {
      const res = await rawExchange(stack.front, request, { timeoutMs: 8000 });
      t.equal(parseHead(res.data).header('x-chaos-origin'), 'control', `${name} for control reaches control`);
    }
    const cases: [string, string, number][] = [
      ['a 16 KiB request line', `${lineOf(16_384)}\r\nHost: ${chaosHost}\r\n\r\n`, 414],
      ['a 64 KiB header', `GET / HTTP/1.1\r\nHost: ${chaosHost}\r\nX-Big: ${'b'.repeat(65_536)}\r\n\r\n`, 431],
      ['101 fields', `GET / HTTP/1.1\r\nHost: ${chaosHost}\r\n${Array.from({ length: 100 }, (_, i) => `X-${i}: v\r\n`).join('')}\r\n`, 431],
      ['HTTP/1.2', `GET / HTTP/1.2\r\nHost: ${controlHost}\r\n\r\n`, 505],
      ['a request line that is not one', 'GET  HTTP/1.1 /\r\nHost: x\r\n\r\n', 400],
    ];
    for (const [name, request, status] of cases) {
      const res = await rawExchange(stack.front, request, { timeoutMs: 8000 });
      isRealError(t, res, status, name);
      t.equal(res.end, 'fin', `${name}: then a FIN, not a reset`);
    }
    // Prior-knowledge HTTP/2 goes through the tcp route to chaos, which speaks HTTP/2 (docs/http2.md): its first frame is SETTINGS.
    const h2 = await rawExchange(stack.front, 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', { until: (data) => data.length >= 9, timeoutMs: 8000 });
    t.same([h2.data[3], h2.data[4], h2.data.readUInt32BE(5)], [0x04, 0, 0], 'a prior-knowledge preface is answered with the chaos replica\'s HTTP/2 SETTINGS frame');
    // The h2c upgrade (an HTTP/1.1 request, routed by its Host) passes byte for byte too: the 101, then the replica's SETTINGS frame.
    const upgrade = `GET /h2/frames?mode=unknown-type HTTP/1.1\r\nHost: ${chaosHost}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABk\r\n\r\n`;
    const afterHead = (data: Buffer): number => data.indexOf('\r\n\r\n') + 4;
    const h2c = await rawExchange(stack.front, upgrade, { until: (data) => afterHead(data) >= 4 && data.length >= afterHead(data) + 9, timeoutMs: 8000 });
    t.same([h2c.data.subarray(0, 34).toString('latin1'), h2c.data[afterHead(h2c.data) + 3]], ['HTTP/1.1 101 Switching Protocols\r\n', 0x04], 'an h2c upgrade through the front door: the 101, then the replica\'s SETTINGS frame');
  });

  await t.test('a request without Host is told that a Host is required', async (t) => {
    for (const request of ['GET / HTTP/1.0\r\n\r\n', 'GET / HTTP/1.0\r\nHost: \r\n\r\n']) {
      const head = isRealError(t, await rawExchange(stack.front, request), 421, JSON.stringify(request));
      t.match(JSON.parse(head.rest.toString()), { error: 'misdirected_request', reason: `${HOST_REQUIRED}; the hosts are ` }, 'the documented message');
    }
    const unknown = isRealError(t, await rawExchange(stack.front, closing('/', 'elsewhere.example')), 421, 'an unknown host');
    t.match(JSON.parse(unknown.rest.toString()), { reason: /^no host elsewhere\.example here/ });
  });

  await t.test('a silent connection is closed after FIRST_REQUEST_TIMEOUT_MS with nothing sent', async (t) => {
    const res = await silent;
    t.equal(res.data.length, 0, 'nothing sent');
    t.equal(res.end, 'fin', 'a FIN');
    t.ok(res.elapsedMs > 4500 && res.elapsedMs < 8000, `after about 5 s (${Math.round(res.elapsedMs)} ms)`);
  });

  await t.test('a head that completes after FIRST_REQUEST_TIMEOUT_MS is still routed by its Host', async (t) => {
    const [chaos, control, never] = await typedHeads;
    t.equal(parseHead(chaos.data).header('x-chaos-endpoint'), '/status/{code}', `chaos, typed over 7 s: the chaos replica serves it (${Math.round(chaos.elapsedMs)} ms)`);
    t.equal(parseHead(control.data).header('x-chaos-origin'), 'control', `control, typed over 12 s with 6 s pauses: control serves it (${Math.round(control.elapsedMs)} ms)`);
    isRealError(t, never, 408, 'a head that never completes');
    t.ok(never.elapsedMs < 30_000, `answered within FIRST_REQUEST_TIMEOUT_MS + 2 × the head time (${Math.round(never.elapsedMs)} ms)`);
  });

  await t.test('1000 pipelined requests on every host, limits off', (t) => pipelined(t, stack));
});

/** 1000 pipelined GETs on one connection to each host: 1000 answers in order, each from the host's replicas. */
async function pipelined(t: Test, stack: Stack): Promise<void> {
  const targets: [string, string, string][] = [
    ['chaos', new URL(stack.urls.chaos).host, '/status/200'],
    ['control', new URL(stack.urls.control).host, '/status/200'],
    ['bots', new URL(stack.urls.bots).host, '/robots.txt'],
  ];
  for (const [name, host, path] of targets) {
    const one = get(path, { Host: host, 'User-Agent': 'pipeline-test/1.0', Accept: '*/*' });
    const request = one.repeat(999) + closing(path, host);
    const res = await rawExchange(stack.front, request, { timeoutMs: 60_000 });
    let responses: ParsedResponse[] = [];
    try {
      responses = splitResponses(res.data).map((r) => r.response);
    } catch (error) {
      t.fail(`${name}: the answers parse (${String(error)})`);
    }
    const statuses = new Map<number, number>();
    for (const r of responses) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    t.equal(responses.length, 1000, `${name}: 1000 answers on one connection (${request.length} bytes sent; ${JSON.stringify(Object.fromEntries(statuses))})`);
    t.ok(responses.every((r) => r.status === 200 || r.status === 429), `${name}: each a 200 or the limiter's 429, none from the edge`);
    t.equal(res.end, 'fin', `${name}: closed after the last`);
  }
}

t.test('1000 pipelined requests on every host, default limits', async (t) => {
  const stack = await startStack(t, { REPLICAS: '1' });
  await pipelined(t, stack);
});

t.test('limits high through Redis: pipelining, and an idle flood from a few hundred addresses', async (t) => {
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '100000', MAX_CONNECTIONS_PER_IP: '4', MAX_CONNECTIONS: '200', REPLICAS: '1' });
  await t.test('1000 pipelined requests on every host', (t) => pipelined(t, stack));

  await t.test('300 addresses in three /24 networks hold at most the per-network cap; another client is answered at once', async (t) => {
    const caps = edgeCaps({ maxConnectionsPerIp: 4, maxConnections: 200 });
    const sockets: net.Socket[] = [];
    t.teardown(() => sockets.forEach((s) => s.destroy()));
    const open = (localAddress: string): Promise<'open' | 'refused'> =>
      new Promise((resolve) => {
        const socket = net.connect({ port: stack.front, host: '127.0.0.1', localAddress });
        sockets.push(socket);
        let state: 'open' | 'refused' = 'open';
        socket.once('connect', () => setTimeout(() => resolve(state), 300));
        // A refused connection is closed by the edge at once.
        socket.once('close', () => {
          state = 'refused';
          resolve('refused');
        });
        socket.once('error', () => undefined);
      });
    const addresses = Array.from({ length: 300 }, (_, i) => `127.0.${201 + Math.floor(i / 100)}.${1 + (i % 100)}`);
    const started = Date.now();
    const results = await Promise.all(addresses.flatMap((a) => Array.from({ length: 4 }, () => open(a))));
    const held = results.filter((r) => r === 'open').length;
    t.ok(held <= 3 * caps.perNetwork, `${held} of 1200 idle sockets held: at most ${caps.perNetwork} per /24 network`);
    t.ok(held >= caps.perNetwork, `each network gets its share (${held})`);
    const client = await rawExchange(stack.front, closing('/status/200', new URL(stack.urls.chaos).host), { localAddress: '127.0.210.7', timeoutMs: 3000 });
    t.equal(parseHead(client.data).status, 200, 'a client from another network is answered');
    t.ok(client.elapsedMs < 1000, `at once (${Math.round(client.elapsedMs)} ms)`);
    const idle = sockets.filter((s) => !s.destroyed);
    const ends = await Promise.all(idle.map((s) => new Promise<number>((resolve) => s.once('close', () => resolve(Date.now() - started)))));
    t.ok(ends.every((ms) => ms < 9000), `the idle sockets were closed by the edge after about 5 s (last at ${Math.max(...ends)} ms)`);
  });
});

t.test("the edge's own answers when no replica can give one are JSON", async (t) => {
  // Readiness always yes; the replicas themselves: one answers garbage, one never answers, and a closed port.
  const ready = http.createServer((_, res) => res.end('ok'));
  const garbage = net.createServer((s) => {
    s.on('error', () => undefined);
    s.once('data', () => s.end('NOT HTTP\r\n\r\n'));
  });
  const silent = net.createServer((s) => s.on('error', () => undefined));
  const servers = [ready, garbage, silent];
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  t.teardown(() => servers.forEach((s) => s.close()));
  const portOf = (s: net.Server): number => (s.address() as net.AddressInfo).port;
  const [front, closed] = [await freePort(), await freePort()];
  await startHaproxy(
    t,
    'edge-errors',
    renderHaproxyConfig({
      ...EXAMPLE_PLAN,
      frontPort: front,
      adminPort: 0,
      // control: garbage; bots: silent (504 after MAX_RESPONSE_MS + 10 s); chaos: nothing listens.
      replicas: { chaos: [closed], control: [portOf(garbage)], bots: [portOf(silent)] },
      checkPorts: { chaos: portOf(ready), control: portOf(ready), bots: portOf(ready) },
      maxResponseMs: 0,
    }),
    front,
  );
  await sleep(1500);
  const badGateway = await rawExchange(front, closing('/', 'control.localhost'), { timeoutMs: 8000 });
  t.match(JSON.parse(isRealError(t, badGateway, 502, 'a replica that answers garbage').rest.toString()), { reason: EDGE_ERRORS[502] });
  const timeout = await rawExchange(front, closing('/', 'bots.localhost'), { timeoutMs: 20_000 });
  t.match(JSON.parse(isRealError(t, timeout, 504, 'a replica that never answers').rest.toString()), { reason: EDGE_ERRORS[504] });
  // Take control's only replica out of HAProxy's view: its check port closes.
  ready.close();
  ready.closeAllConnections();
  await sleep(3500);
  const unavailable = await rawExchange(front, closing('/', 'control.localhost'), { timeoutMs: 8000 });
  t.match(JSON.parse(isRealError(t, unavailable, 503, 'no replica up').rest.toString()), { reason: EDGE_ERRORS[503] });
});
