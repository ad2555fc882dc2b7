// Client identity (TRUST_PROXY): whom the per-IP limits count, on real
// sockets. The chaos host believes a PROXY v2 header only from a trusted
// peer, and demands one from it; control and bots believe X-Forwarded-For
// only from a trusted peer, and then only its right-most untrusted address.
// A client's own header never changes its identity, and never becomes a key.
import { once } from 'node:events';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { ChaosServer } from '../../../services/chaos/server.js';
import type { Config } from '../../../shared/config/config.js';
import { HttpService } from '../../../shared/http/http-service.js';
import { createLogger } from '../../../shared/config/log.js';
import { proxyV2, RecordingStore } from '../../helpers/proxy-v2.js';
import { completeByLength, get, parseHead, rawExchange, splitResponses, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos, startHttp, stopAtTeardown, testConfig } from '../../helpers/servers.js';
import { serviceRegistries } from '../../../services/registries.js';

const CHAOS_PATH = '/slow?ms=0';
const HTTP_PATH = { control: '/truncate?at=2', bots: '/humans.txt' } as const;
/** The longest key a canonical address makes: the policy, a colon and 39 characters of IPv6. */
const MAX_KEY = 'general:'.length + 39;

function bytes(...parts: (string | Buffer)[]): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p)));
}

/** One request on its own connection; the response once complete. */
async function ask(port: number, request: string | Buffer, host = '127.0.0.1'): Promise<ParsedResponse> {
  return parseHead((await rawExchange(port, request, { until: completeByLength, host })).data);
}

/** How many whole responses (framed by Content-Length) `data` holds. */
function wholeResponses(data: Buffer): number {
  let count = 0;
  let rest = data;
  while (completeByLength(rest)) {
    const head = parseHead(rest);
    rest = head.rest.subarray(Number(head.header('content-length') ?? 0));
    count++;
  }
  return count;
}

/** A request the server refuses: the whole exchange up to the server's close. */
async function refused(t: Test, port: number, request: Buffer, status: number, reason: RegExp): Promise<void> {
  const r = await rawExchange(port, request);
  t.equal(r.end, 'fin', 'the server closes the connection');
  const head = parseHead(r.data);
  t.equal(head.status, status);
  t.equal(head.header('connection'), 'close');
  t.same(head.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], 'a real failure: no X-Chaos-* line');
  const body = JSON.parse(head.rest.toString('utf8')) as { error: string; reason: string };
  t.equal(body.error, status === 400 ? 'bad_request' : 'request_timeout');
  t.match(body.reason, reason);
}

/** Writes each part in a packet of its own (a pause between them), then reads until a complete response or the close. */
async function inParts(port: number, parts: readonly Buffer[], pauseMs = 1): Promise<Buffer> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  socket.setNoDelay(true);
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (completeByLength(Buffer.concat(chunks))) resolve();
    });
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
  for (const part of parts) {
    socket.write(part);
    await delay(pauseMs);
  }
  await done;
  socket.destroy();
  return Buffer.concat(chunks);
}

const statuses = async (n: number, send: () => Promise<ParsedResponse>): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send()).status);
  return out;
};

t.test('chaos: from a trusted peer, the PROXY v2 source is the client the limits count', async (t) => {
  const store = new RecordingStore();
  const { port } = await startChaos(t, { config: testConfig({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_GENERAL: '2' }), store });
  const via = (header: Buffer) => () => ask(port, bytes(header, get(CHAOS_PATH)));
  t.same(await statuses(3, via(proxyV2({ source: '192.0.2.1' }))), [200, 200, 429], 'one client: 2, then the limit');
  t.same(await statuses(3, via(proxyV2({ source: '192.0.2.2' }))), [200, 200, 429], 'another client behind the same proxy: its own 2');
  t.same(await statuses(3, via(proxyV2({ source: '2001:DB8:0:0:0:0:0:7' }))), [200, 200, 429], 'an IPv6 client');
  t.same(await statuses(2, via(proxyV2({ source: '::ffff:192.0.2.1' }))), [429, 429], 'IPv4-mapped is the same IPv4 client');
  // The proxy speaking for itself (its health checks) is nobody's request: no limit counts it.
  t.same(await statuses(4, via(proxyV2({ command: 'local' }))), [200, 200, 200, 200], 'LOCAL (health check): never limited');
  t.same(await statuses(3, via(proxyV2({ familyTransport: 0x00 }))), [200, 200, 200], 'AF_UNSPEC: the proxy itself too');
  t.same([...new Set(store.keys)], ['general:192.0.2.1', 'general:192.0.2.2', 'general:2001:db8::7'], 'and they leave no key');
  t.same([...new Set(store.hosts)], ['chaos'], 'keys name their host: each host keeps its own budget');
});

t.test('chaos: the header and the request in any split; TLVs skipped; pipelining after the header', async (t) => {
  const store = new RecordingStore();
  const { port } = await startChaos(t, { config: testConfig({ TRUST_PROXY: '127.0.0.0/8', RATE_LIMIT_GENERAL: '1000' }), store });
  const header = proxyV2({ source: '198.51.100.23', tlvs: [{ type: 0x05, value: Buffer.from('id-1') }] });
  const slow = parseHead(await inParts(port, [...bytes(header, get(CHAOS_PATH))].map((b) => Buffer.of(b))));
  t.equal(slow.status, 200, 'header and request byte by byte');
  t.equal(store.keys.at(-1), 'general:198.51.100.23');

  const both = await rawExchange(port, bytes(proxyV2({ source: '198.51.100.24' }), get(CHAOS_PATH, { Connection: 'keep-alive' }), get(CHAOS_PATH, { Connection: 'close' })));
  t.equal((both.data.toString('latin1').match(/^HTTP\/1\.1 200 /gm) ?? []).length, 2, 'two pipelined requests after the header, one chunk');
  t.same(store.keys.slice(-2), ['general:198.51.100.24', 'general:198.51.100.24'], 'one client for the whole connection');

  const later = await inParts(port, [proxyV2({ source: '2001:db8::25' }), Buffer.from(get(CHAOS_PATH))], 50);
  t.equal(parseHead(later).status, 200, 'the request in a later packet than the header');
  t.equal(store.keys.at(-1), 'general:2001:db8::25');
});

t.test('chaos: a trusted peer must open with a valid header (400 or 408, then close)', async (t) => {
  const store = new RecordingStore();
  const { port } = await startChaos(t, { config: testConfig({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_GENERAL: '1000' }), store, requestTimeoutMs: 300 });
  await refused(t, port, Buffer.from(get(CHAOS_PATH)), 400, /does not start with a PROXY protocol v2 header/);
  await refused(t, port, bytes('PROXY TCP4 192.0.2.1 198.51.100.1 5000 80\r\n', get(CHAOS_PATH)), 400, /does not start/);
  await refused(t, port, bytes(proxyV2({ version: 3 }), get(CHAOS_PATH)), 400, /version 3/);
  await refused(t, port, bytes(proxyV2({ command: 0x7 }), get(CHAOS_PATH)), 400, /unknown PROXY protocol command/);
  await refused(t, port, bytes(proxyV2({ familyTransport: 0x51 }), get(CHAOS_PATH)), 400, /address family/);
  await refused(t, port, bytes(proxyV2({ familyTransport: 0x00, length: 60_000 }), Buffer.alloc(2000)), 400, /declares 60000 bytes/);
  await refused(t, port, bytes(proxyV2({ block: Buffer.alloc(29) }), get(CHAOS_PATH)), 400, /TLV cut short/);
  await refused(t, port, Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0xff]), 400, /does not start/);
  // Truncated: cut off like a slow request head, or closed when the client leaves.
  await refused(t, port, proxyV2({ source: '192.0.2.9' }).subarray(0, 20), 408, /not received in time/);
  const left = await rawExchange(port, proxyV2({ source: '192.0.2.9' }).subarray(0, 20), { endAfterWrite: true });
  t.equal(left.end, 'fin', 'a client that leaves mid-header is closed');
  t.equal(left.data.length, 0, 'with nothing written');
  t.same(store.keys, [], 'no refused header ever named a client');
  t.equal((await ask(port, bytes(proxyV2(), get(CHAOS_PATH)))).status, 200, 'the server goes on serving');
});

t.test('chaos: from an untrusted peer a PROXY header is a malformed request', async (t) => {
  for (const trust of [undefined, '10.0.0.0/8, ::1']) {
    const store = new RecordingStore();
    const config = testConfig({ RATE_LIMIT_GENERAL: '2', ...(trust === undefined ? {} : { TRUST_PROXY: trust }) });
    const { port } = await startChaos(t, { config, store });
    await refused(t, port, bytes(proxyV2({ source: '192.0.2.1' }), get(CHAOS_PATH)), 400, /./);
    await refused(t, port, bytes(proxyV2({ command: 'local' }), get(CHAOS_PATH)), 400, /./);
    // The client is its socket address, whatever it sends: two, then the limit.
    const plain = () => ask(port, get(CHAOS_PATH));
    t.same(await statuses(3, plain), [200, 200, 429], `TRUST_PROXY=${trust ?? '(unset)'}: the socket address`);
    t.same([...new Set(store.keys)], ['general:127.0.0.1']);
  }
});

for (const host of ['control', 'bots'] as const) {
  const path = HTTP_PATH[host];

  t.test(`${host}: an untrusted peer's X-Forwarded-For changes nothing`, async (t) => {
    for (const trust of [undefined, '10.0.0.0/8']) {
      const store = new RecordingStore();
      const config = testConfig({ RATE_LIMIT_GENERAL: '3', ...(trust === undefined ? {} : { TRUST_PROXY: trust }) });
      const { port } = await startHttp(t, host, config, store);
      let i = 0;
      const rotating = () => ask(port, get(path, { 'X-Forwarded-For': `192.0.2.${++i}` }));
      t.same(await statuses(8, rotating), [200, 200, 200, 429, 429, 429, 429, 429], `TRUST_PROXY=${trust ?? '(unset)'}: rotating its own header never escapes the limit`);
      t.same([...new Set(store.keys)], ['general:127.0.0.1']);
    }
  });

  t.test(`${host}: from a trusted peer, the right-most untrusted address of X-Forwarded-For`, async (t) => {
    const store = new RecordingStore();
    const { port } = await startHttp(t, host, testConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8', RATE_LIMIT_GENERAL: '1000' }), store);
    const cases: [string | string[] | undefined, string][] = [
      ['192.0.2.1', '192.0.2.1'],
      ['198.51.100.9, 192.0.2.2', '192.0.2.2'],
      ['192.0.2.3, 10.1.2.3', '192.0.2.3'],
      ['192.0.2.4, 10.0.0.1, 127.0.0.1', '192.0.2.4'],
      ['192.0.2.5, unknown, _obfuscated', '192.0.2.5'],
      ['2001:DB8:0:0::1', '2001:db8::1'],
      ['::ffff:192.0.2.6', '192.0.2.6'],
      [['192.0.2.7', '192.0.2.8'], '192.0.2.8'],
      ['unknown', '127.0.0.1'],
      // Only trusted addresses: the client is on the proxy's network (the left-most one).
      ['10.0.0.1', '10.0.0.1'],
      ['10.0.0.2, 127.0.0.1', '10.0.0.2'],
      ['x'.repeat(15_000), '127.0.0.1'],
      [`192.0.2.9,${'y'.repeat(15_000)}`, '192.0.2.9'],
    ];
    for (const [forwarded, client] of cases) {
      const lines = forwarded === undefined ? [] : (Array.isArray(forwarded) ? forwarded : [forwarded]).map((v) => `X-Forwarded-For: ${v}`);
      const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`;
      const head = await ask(port, request);
      t.equal(head.status, 200, `${String(forwarded).slice(0, 40)}: served`);
      t.equal(store.keys.at(-1), `general:${client}`, `${String(forwarded).slice(0, 40)} → ${client}`);
    }
    t.ok(store.keys.every((k) => k.length <= MAX_KEY), 'every key is bounded');
    const before = store.keys.length;
    t.equal((await ask(port, get(path))).status, 200, 'the trusted proxy with no X-Forwarded-For (its health check) is served');
    t.equal(store.keys.length, before, 'and no limit counted it');
  });

  t.test(`${host}: on one kept connection from a trusted peer, each request is its own X-Forwarded-For's client`, async (t) => {
    const store = new RecordingStore();
    const { port } = await startHttp(t, host, testConfig({ TRUST_PROXY: 'loopback', RATE_LIMIT_GENERAL: '1000' }), store);
    // A proxy reuses a connection for its clients' requests: the address is decided once per value, never kept past a change.
    const forwarded = ['192.0.2.20', '192.0.2.20', '192.0.2.21', undefined, '192.0.2.20', '2001:db8::20'];
    const requests = forwarded.map((v) => get(path, v === undefined ? {} : { 'X-Forwarded-For': v }));
    const r = await rawExchange(port, requests, { until: (data) => wholeResponses(data) === requests.length });
    t.same(splitResponses(r.data).map((x) => x.response.status), forwarded.map(() => 200), 'every request served on the one connection');
    t.same(store.keys, ['general:192.0.2.20', 'general:192.0.2.20', 'general:192.0.2.21', 'general:192.0.2.20', 'general:2001:db8::20'], 'counted against each request\'s client; the proxy itself (no header) against nobody');
  });

  t.test(`${host}: two clients behind a trusted proxy each get their own limit`, async (t) => {
    const { port } = await startHttp(t, host, testConfig({ TRUST_PROXY: 'loopback', RATE_LIMIT_GENERAL: '2' }));
    const as = (client: string) => () => ask(port, get(path, { 'X-Forwarded-For': `203.0.113.50, ${client}` }));
    t.same(await statuses(3, as('192.0.2.10')), [200, 200, 429]);
    t.same(await statuses(3, as('2001:db8::10')), [200, 200, 429]);
    t.same(await statuses(1, as('2001:db8:0::10')), [429], 'the same IPv6 client written otherwise');
  });
}

/** Why this machine cannot listen on the IPv6 loopback, or undefined when it can. */
async function ipv6LoopbackProblem(): Promise<string | undefined> {
  const server = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '::1', resolve);
    });
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  } finally {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
}

t.test('IPv6 peers: a ::1 listener, trusted and not', async (t) => {
  // No skip and no silent pass: a machine without ::1 cannot run this test, and says so.
  const problem = await ipv6LoopbackProblem();
  if (problem !== undefined) {
    t.fail(
      `cannot listen on ::1 (${problem}): this test needs the IPv6 loopback; ` +
        'enable it (sysctl net.ipv6.conf.lo.disable_ipv6=0, or a kernel with IPv6) and run it again',
    );
    return;
  }
  const logger = createLogger('chaos', 'silent');
  const chaosOn = async (config: Config, store: RecordingStore): Promise<number> => {
    const server = new ChaosServer({ config, logger, registry: serviceRegistries().chaos, store });
    stopAtTeardown(t, server, store);
    return server.listen(0, '::1');
  };
  const httpOn = async (host: 'control' | 'bots', config: Config, store: RecordingStore): Promise<number> => {
    const registry = host === 'control' ? serviceRegistries().control : serviceRegistries().bots;
    const service = new HttpService({ host, config, logger, registry, store });
    stopAtTeardown(t, service, store);
    return service.listen(0, '::1');
  };
  const trusted = testConfig({ TRUST_PROXY: '::1', RATE_LIMIT_GENERAL: '1000' });
  const untrusted = testConfig({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_GENERAL: '1000' });

  let store = new RecordingStore();
  let port = await chaosOn(trusted, store);
  t.equal((await ask(port, bytes(proxyV2({ source: '192.0.2.60' }), get(CHAOS_PATH)), '::1')).status, 200);
  t.equal((await ask(port, bytes(proxyV2({ command: 'local' }), get(CHAOS_PATH)), '::1')).status, 200);
  t.same(store.keys, ['general:192.0.2.60'], 'chaos on ::1: the PROXY source; LOCAL is not counted');

  store = new RecordingStore();
  port = await chaosOn(untrusted, store);
  t.equal((await ask(port, bytes(proxyV2({ source: '192.0.2.60' }), get(CHAOS_PATH)), '::1')).status, 400, 'chaos: ::1 not trusted');
  t.equal((await ask(port, get(CHAOS_PATH), '::1')).status, 200);
  t.same(store.keys, ['general:::1']);

  store = new RecordingStore();
  port = await httpOn('control', trusted, store);
  t.equal((await ask(port, get(HTTP_PATH.control, { 'X-Forwarded-For': '2001:db8::61, ::1' }), '::1')).status, 200);
  t.same(store.keys, ['general:2001:db8::61'], 'control on ::1: the trusted ::1 hop is skipped');

  store = new RecordingStore();
  port = await httpOn('bots', untrusted, store);
  t.equal((await ask(port, get(HTTP_PATH.bots, { 'X-Forwarded-For': '2001:db8::62' }), '::1')).status, 200);
  t.same(store.keys, ['general:::1'], 'bots on ::1, not trusted: the peer');
});
