// The transport seam (issue 24, item 10). The chaos connection code serves a
// tls.TLSSocket as it serves a plain socket: a TLS listener made here, with a
// certificate openssl makes for the test, hands its sockets to
// ChaosServer.accept, and every chaos endpoint's catalog example decrypts to
// the bytes the plain port sends (Date lines normalised). A definition's
// `transports` are enforced: a request over a transport its endpoint does
// not serve is a real 421 (no X-Chaos-* line), remembered decisions included.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import t, { type Test } from 'tap';
import { defineChaosEndpoint, sendComplete, type ChaosContext } from '../../../services/chaos/endpoint.js';
import { serviceRegistries } from '../../../services/registries.js';
import type { ChaosServer } from '../../../services/chaos/server.js';
import { exampleOf } from '../../../shared/catalog/catalog.js';
import { Registry } from '../../../shared/registry/registry.js';
import type { TransportSpec } from '../../../shared/registry/transports.js';
import { parseHead } from '../../helpers/raw.js';
import { startChaos, testConfig } from '../../helpers/servers.js';

/** A key and a self-signed certificate for localhost and 127.0.0.1, made by openssl for this test only. */
function testCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert,
    ], { stdio: 'ignore' });
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CERT = testCertificate();

/** A TLS listener whose sockets, once past the handshake, go to the chaos server's connection code. */
async function startTlsFront(t: Test, chaos: ChaosServer): Promise<number> {
  const server = tls.createServer({ ...CERT, allowHalfOpen: true, ALPNProtocols: ['http/1.1'] }, (socket) => chaos.accept(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

interface Fetched {
  readonly data: Buffer;
  readonly end: 'end' | 'error' | 'timeout';
}

/** Writes `request` on a fresh connection (TLS or plain) and keeps every byte until the server ends it, or `timeoutMs`. */
function fetchOver(secure: boolean, port: number, request: Buffer, timeoutMs: number): Promise<Fetched> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const socket: net.Socket = secure
      ? tls.connect({ port, host: '127.0.0.1', servername: 'localhost', ca: CERT.cert, ALPNProtocols: ['http/1.1'] }, () => socket.write(request))
      : net.connect({ port, host: '127.0.0.1' }, () => socket.write(request));
    const finish = (end: Fetched['end']): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), end });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish('end'));
    socket.on('error', () => finish('error'));
    socket.on('close', () => finish('end'));
  });
}

/** The bytes with every Date line's value replaced: the one thing two answers a second apart may differ in. */
function normalised(data: Buffer): string {
  return data.toString('latin1').replace(/\r\nDate: [^\r\n]*/g, '\r\nDate: <date>');
}

function requestFor(example: { method: string; target: string; body?: { type: string; text: string } }): Buffer {
  const body = example.body === undefined ? '' : example.body.text;
  const framing = example.body === undefined ? '' : `Content-Type: ${example.body.type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return Buffer.from(`${example.method} ${example.target} HTTP/1.1\r\nHost: chaos.test:8080\r\nConnection: close\r\n${framing}\r\n${body}`, 'utf8');
}

/** A fetch waits this long for the server to end the connection (held endpoints end at HOLD_MS). */
const FETCH_MS = 8000;
const PARALLEL = 4;

t.test('every chaos endpoint example over TLS decrypts to the bytes of the plain port', async (t) => {
  t.setTimeout(600_000);
  // Short holds, so that endpoints that hold end within a fetch; the same for both ports.
  const config = testConfig({ RATE_LIMIT_INFINITE: '0', HOLD_MS: '1000' });
  const registry = serviceRegistries().chaos;
  const { port, server } = await startChaos(t, { config, registry });
  const tlsPort = await startTlsFront(t, server);
  // An HTTP/2-only endpoint's example is a 421 over HTTP/1.1 that names the transport it came over: nothing to compare.
  const overHttp1 = registry.endpoints.filter((endpoint) => endpoint.transports?.protocols?.includes('http/1.1') ?? true);
  const examples = overHttp1.map((endpoint) => {
    const example = exampleOf(endpoint, config);
    // A seed makes a seeded endpoint's answer one answer: the two ports can then be held to the same bytes.
    const seeded = 'seed' in endpoint.params && !/[?&]seed=/.test(example.target);
    const target = seeded ? `${example.target}${example.target.includes('?') ? '&' : '?'}seed=tls-seam` : example.target;
    return { id: endpoint.id, request: requestFor({ ...example, target }) };
  });
  const same: string[] = [];
  const varying: string[] = [];
  const differ: string[] = [];
  const queue = [...examples];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let example = queue.shift(); example !== undefined; example = queue.shift()) {
        // Plain, TLS, plain: an answer the plain port gives twice alike is the TLS port's answer too.
        const before = await fetchOver(false, port, example.request, FETCH_MS);
        const secure = await fetchOver(true, tlsPort, example.request, FETCH_MS);
        const after = await fetchOver(false, port, example.request, FETCH_MS);
        const plain = normalised(before.data);
        if (plain !== normalised(after.data)) {
          // Random without a seed, a clock or state: only the status line is held alike.
          varying.push(example.id);
          const statusLine = (text: string): string => text.slice(0, text.indexOf('\r\n'));
          const line = statusLine(normalised(secure.data));
          if (!line.startsWith('HTTP/1.1 ')) differ.push(`${example.id}: no response over TLS`);
          continue;
        }
        // A connection the plain port ends (FIN or reset) ends over TLS too: a TLS reset that failed would leave it open.
        if ((secure.end === 'timeout') !== (before.end === 'timeout')) differ.push(`${example.id}: ended ${before.end} plain, ${secure.end} over TLS`);
        else if (normalised(secure.data) === plain) same.push(example.id);
        else differ.push(`${example.id}: ${JSON.stringify(normalised(secure.data).slice(0, 200))} over TLS, ${JSON.stringify(plain.slice(0, 200))} plain`);
      }
    }),
  );
  t.same(differ, [], 'no example answers otherwise over TLS');
  t.equal(same.length + varying.length, examples.length, `${examples.length} examples fetched`);
  // Most answers are deterministic: the comparison above is byte for byte for them.
  t.ok(same.length >= examples.length - 8, `${same.length} compared byte for byte; varying between two plain fetches: ${varying.join(', ')}`);
});

/** A registry whose endpoints serve different transports, answering what their request came over. */
function transportRegistry(): Registry<ChaosContext> {
  const facts = (id: string, path: string, transports: TransportSpec | undefined) =>
    defineChaosEndpoint({
      id, path, category: 'status', summary: `serves ${id}`, params: {}, counterpart: null, ...(transports ? { transports } : {}),
      handle(ctx) {
        const { protocol, tls: secure, alpn, servername } = ctx.req.transport;
        sendComplete(ctx, 200, 'application/json', Buffer.from(`${JSON.stringify({ protocol, tls: secure, alpn: alpn ?? null, servername: servername ?? null })}\n`));
      },
    });
  return new Registry('chaos', [
    facts('either', '/either', undefined),
    facts('tls-only', '/tls-only', { tls: 'tls' }),
    facts('plain-only', '/plain-only', { tls: 'plain' }),
    facts('websocket-only', '/websocket-only', { protocols: ['websocket'] }),
  ]);
}

function get(path: string, close: boolean): Buffer {
  return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: chaos.test:8080\r\n${close ? 'Connection: close\r\n' : ''}\r\n`, 'latin1');
}

t.test('a request over a transport its endpoint does not serve is a real 421', async (t) => {
  const { port, server } = await startChaos(t, { registry: transportRegistry() });
  const tlsPort = await startTlsFront(t, server);
  // A refusal is asked for on a keep-alive connection: the server must end it.
  const ask = async (secure: boolean, path: string, close = true) => {
    const fetched = await fetchOver(secure, secure ? tlsPort : port, get(path, close), FETCH_MS);
    const head = parseHead(fetched.data);
    return { head, body: head.rest.toString('latin1'), text: fetched.data.toString('latin1', 0, head.headLength), end: fetched.end };
  };
  const refused = (t: Test, answer: Awaited<ReturnType<typeof ask>>, reason: string): void => {
    t.equal(answer.head.status, 421);
    t.notMatch(answer.text, /\r\nX-Chaos-/i, 'no X-Chaos-* line: a real error');
    t.match(answer.text, /\r\nConnection: close\r\n/, 'the connection closes: the client retries over another');
    t.equal(answer.end, 'end', 'closed by the server, though the request kept it alive');
    t.same(JSON.parse(answer.body), { error: 'misdirected_request', reason });
  };

  await t.test('the transport facts reach the handler', async (t) => {
    t.same(JSON.parse((await ask(true, '/either')).body), { protocol: 'http/1.1', tls: true, alpn: 'http/1.1', servername: 'localhost' });
    t.same(JSON.parse((await ask(false, '/either')).body), { protocol: 'http/1.1', tls: false, alpn: null, servername: null });
  });
  await t.test('TLS only', async (t) => {
    // Served over TLS first, so its decision is remembered: a plain request for the same target is still judged.
    t.equal((await ask(true, '/tls-only')).head.status, 200);
    refused(t, await ask(false, '/tls-only', false), '/tls-only is served over HTTP/1.1, over TLS only; this request came over HTTP/1.1 without TLS');
    t.equal((await ask(true, '/tls-only')).head.status, 200, 'and over TLS again');
  });
  await t.test('never over TLS', async (t) => {
    t.equal((await ask(false, '/plain-only')).head.status, 200);
    refused(t, await ask(true, '/plain-only', false), '/plain-only is served over HTTP/1.1, without TLS only; this request came over HTTP/1.1 over TLS');
  });
  await t.test('another protocol', async (t) => {
    const reason = (came: string): string => `/websocket-only is served over WebSocket, plain or over TLS; this request came over ${came}`;
    refused(t, await ask(false, '/websocket-only', false), reason('HTTP/1.1 without TLS'));
    refused(t, await ask(true, '/websocket-only', false), reason('HTTP/1.1 over TLS'));
  });
});
