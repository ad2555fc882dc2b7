// The control twins over TLS (issue 28, docs/http2.md "Control twins over
// TLS"): control's own TLS listener (CONTROL_TLS_PORT) serves the name
// control.<TLS_BASE> with a leaf from the published root, agrees h2 or
// http/1.1 in ALPN and hands the decrypted socket to control's own server:
// curl --http2 and Node's http2.connect, trusting the root the hub
// publishes, get h2 and a 200 with the whole body on the twins; HTTP/1.1 on
// the same port works too. Its bounds: the per-IP connection cap counted at
// accept, once per connection; a stalled handshake closed at 10 s; behind a
// trusted proxy, the PROXY v2 header names the client the limits count,
// over HTTP/1.1 and over h2. Chromium: client-cells.test.ts; through the
// front door: front-door/tls.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import t from 'tap';
import { curlH2, nodeH2 } from '../../../scripts/scorecard/h2-clients.js';
import { h2Get } from '../../../scripts/scorecard/h2-node.js';
import { runProgram } from '../../../scripts/scorecard/tls-clients.js';
import { ControlTlsService } from '../../../services/control/tls-service.js';
import { serviceFactory } from '../../../services/service-factories.js';
import type { Config } from '../../../shared/config/config.js';
import { createLogger } from '../../../shared/config/log.js';
import { TLS_HANDSHAKE_MS } from '../../../shared/http/tls-door.js';
import { MemoryStore } from '../../../shared/store/memory.js';
import { controlTlsHost } from '../../../shared/tls/modes.js';
import { startService } from '../../../shared/runtime/run.js';
import { freePort } from '../../helpers/process.js';
import { proxyV2 } from '../../helpers/proxy-v2.js';
import { testConfig } from '../../helpers/servers.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-control-tls-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Control as its process builds it (the service factory), listening on free ports; stopped at teardown. */
async function startControl(config: Config): Promise<{ port: number; tlsPort: number }> {
  const store = new MemoryStore();
  const service = serviceFactory('control')(config, createLogger('control', 'silent'), store);
  if (!(service instanceof ControlTlsService)) throw new Error('no TLS listener with TLS_DIR and CONTROL_TLS_PORT set');
  t.teardown(async () => {
    await service.shutdown(0);
    await store.close();
  });
  const port = await service.listen(0, '127.0.0.1');
  return { port, tlsPort: service.tlsPort ?? 0 };
}

const config = testConfig({ TLS_DIR: dir, CONTROL_TLS_PORT: '0', MAX_CONNECTIONS_PER_IP: '4' });
const { port, tlsPort } = await startControl(config);
const name = controlTlsHost(config.tls.base);

/** The root as the hub (a name of the control port) publishes it. */
const root = await new Promise<string>((resolve, reject) => {
  http
    .get({ host: '127.0.0.1', port, path: '/tls/root.pem', headers: { Host: 'hub.test:8080' } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    })
    .on('error', reject);
});
const rootFile = join(dir, 'published-root.pem');
writeFileSync(rootFile, root);
const reach = { origin: `https://${name}:${tlsPort}`, tls: { rootFile, rootPem: root, name, port: tlsPort } };
/** Node connects to the address, naming the host in SNI and checking the certificate against it. */
const nodeReach = { origin: `https://127.0.0.1:${tlsPort}`, tls: reach.tls };

/** The twins a client can GET, and ordinary ones. */
const TWINS = ['/status/200', '/json', '/h2/rst?at=100', '/h2/goaway?mode=zero', '/h2/frames?mode=oversize-data', '/h2/headers?mode=uppercase', '/h2/stall', '/h2/flow?mode=exceed-window'];

interface Handshake {
  readonly alpn: string | false;
  readonly authorized: boolean;
  readonly error: string | undefined;
  readonly subject: string;
}

function handshake(options: tls.ConnectionOptions): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: tlsPort, servername: name, ca: root, ...options }, () => {
      const subject = socket.getPeerCertificate().subject;
      resolve({ alpn: socket.alpnProtocol ?? false, authorized: socket.authorized, error: undefined, subject: `CN=${String(subject?.CN)}, OU=${String(subject?.OU)}` });
      socket.destroy();
    });
    socket.on('error', (error: Error & { code?: string }) => resolve({ alpn: false, authorized: false, error: error.code ?? error.message, subject: '' }));
  });
}

t.test('the leaf: control.tls.localhost, verified against the published root; ALPN h2 when offered, else http/1.1', async (t) => {
  t.equal(name, 'control.tls.localhost', 'the name: control under TLS_BASE');
  const both = await handshake({ ALPNProtocols: ['h2', 'http/1.1'] });
  t.same(both, { alpn: 'h2', authorized: true, error: undefined, subject: 'CN=control.tls.localhost, OU=control' }, 'h2 offered with http/1.1: h2, a chain to the root');
  t.equal((await handshake({ ALPNProtocols: ['http/1.1'] })).alpn, 'http/1.1', 'http/1.1 only: http/1.1');
  t.equal((await handshake({})).alpn, false, 'no ALPN: none');
  const other = await handshake({ servername: 'good.tls.localhost' });
  t.equal(other.error, 'ERR_TLS_CERT_ALTNAME_INVALID', 'one name only: a client asking for another refuses it');
});

t.test('curl --http2 with --cacert the published root: h2 and 200 with the whole body on the twins', async (t) => {
  for (const path of TWINS) {
    const [curl, node] = await Promise.all([curlH2(reach, path), nodeH2(nodeReach, path)]);
    t.match(curl, /^exit 0, HTTP\/2 200, \d+ bytes$/, `${path}: curl ${curl}`);
    t.match(node, /^200, \d+ bytes$/, `${path}: Node ${node}`);
    t.equal(/(\d+) bytes$/.exec(curl)?.[1], /(\d+) bytes$/.exec(node)?.[1], `${path}: the same body to both`);
  }
});

t.test('Node http2.connect: h2 agreed, the control lines, the body its content-length promises', async (t) => {
  const out = await h2Get(nodeReach.origin, '/h2/rst?at=100', { connect: { ca: root, servername: name } });
  t.equal(out.status, 200);
  t.equal(out.headers['x-chaos-origin'], 'control');
  t.equal(out.body.length, Number(out.headers['content-length']), 'the whole body');
  t.equal(out.rstCode, 0, 'no RST_STREAM');
  t.equal(out.remoteSettings?.maxConcurrentStreams, 100, "the plain port's SETTINGS: the same door");
  t.equal(out.remoteSettings?.maxHeaderListSize, 16_384);
  const big = await h2Get(nodeReach.origin, '/status/200', { connect: { ca: root, servername: name }, headers: { 'x-big': 'a'.repeat(17_000) } });
  t.equal(big.status, 431, "the plain port's header-list bound: a real 431");
});

t.test('HTTP/1.1 over the same TLS port', async (t) => {
  const curl = await runProgram('curl', ['-sS', '-i', '--http1.1', '--max-time', '10', '--cacert', rootFile, '--resolve', `${name}:${tlsPort}:127.0.0.1`, `https://${name}:${tlsPort}/status/200`]);
  t.equal(curl.code, 0, `curl exits 0 ${curl.err}`);
  t.match(curl.out, /^HTTP\/1\.1 200 OK\r\n[\s\S]*X-Chaos-Origin: control\r\n/, 'HTTP/1.1 200, a control answer');
  const h2only = await runProgram('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '--http1.1', '--cacert', rootFile, '--resolve', `${name}:${tlsPort}:127.0.0.1`, `https://${name}:${tlsPort}/h2/rst`]);
  t.equal(h2only.out, '421', 'an /h2/* twin over HTTP/1.1: the real 421, as on the plain port');
});

/** Opens a TCP connection from `localAddress` to the TLS port; resolves once connected, or with how it ended. */
function tcpFrom(localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: tlsPort, localAddress }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Whether `socket` is closed by the server within `ms`. */
function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

t.test('the per-IP connection cap counts each TLS connection once, at accept, with the plain port (MAX_CONNECTIONS_PER_IP=4)', async (t) => {
  const held: net.Socket[] = [];
  t.teardown(() => held.forEach((s) => s.destroy()));
  const sessions: http2.ClientHttp2Session[] = [];
  t.teardown(() => sessions.forEach((s) => s.destroy()));
  // Four TLS connections from one address, each past its handshake and answering: counted once each.
  for (let i = 0; i < 4; i++) {
    const session = http2.connect(`https://127.0.0.1:${tlsPort}`, { ca: root, servername: name, localAddress: '127.0.0.5' } as http2.SecureClientSessionOptions);
    session.on('error', () => undefined);
    sessions.push(session);
    const status = await new Promise<number | string>((resolve) => {
      const req = session.request({ ':path': '/status/200' });
      req.on('response', (headers) => resolve(Number(headers[':status'])));
      req.on('error', (error: Error) => resolve(error.message));
      req.resume();
    });
    t.equal(status, 200, `TLS connection ${i + 1} from 127.0.0.5 answers`);
  }
  const fifth = await tcpFrom('127.0.0.5');
  t.ok(await closedWithin(fifth, 3000), 'a fifth connection from 127.0.0.5 is closed at accept');
  // Closed by the client: each gives its slot back (the count is the TCP socket's, released at its close).
  await Promise.all(sessions.splice(0).map((session) => new Promise((resolve) => session.close(() => resolve(undefined)))));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const again = await handshake({ localAddress: '127.0.0.5' } as tls.ConnectionOptions);
  t.equal(again.error, undefined, 'after they close, 127.0.0.5 connects again');
  // Before any handshake: two plain and two TLS connections that send nothing fill another address's cap.
  const plain = await Promise.all([0, 1].map(() => new Promise<net.Socket>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.6' }, () => resolve(socket));
    socket.on('error', () => undefined);
  })));
  held.push(...plain, await tcpFrom('127.0.0.6'), await tcpFrom('127.0.0.6'));
  const over = await tcpFrom('127.0.0.6');
  t.ok(await closedWithin(over, 3000), 'counted with the plain port, before the handshake: the fifth is closed');
  const elsewhere = await handshake({ localAddress: '127.0.0.7' } as tls.ConnectionOptions);
  t.equal(elsewhere.error, undefined, 'another address connects');
});

t.test(`a TCP connection that never says hello is closed after ${TLS_HANDSHAKE_MS} ms`, async (t) => {
  const socket = await tcpFrom('127.0.0.8');
  const started = performance.now();
  t.notOk(await closedWithin(socket, TLS_HANDSHAKE_MS - 2000), 'still open well before the bound');
  t.ok(await closedWithin(socket, 10_000), 'closed by the server');
  t.ok(performance.now() - started < TLS_HANDSHAKE_MS + 8000, `within the bound (and a busy machine's slack): ${Math.round(performance.now() - started)} ms`);
});

t.test('behind a trusted proxy: the PROXY v2 header names the client the limits count, over HTTP/1.1 and h2', async (t) => {
  const proxied = testConfig({ TLS_DIR: dir, CONTROL_TLS_PORT: '0', TRUST_PROXY: '127.0.0.1', RATE_LIMIT_GENERAL: '2' });
  const door = await startControl(proxied);
  /** A TLS socket to the door, from the trusted loopback, after a PROXY v2 header naming `source` (none: no header). */
  const through = (source: string | undefined, alpn: string): Promise<tls.TLSSocket> =>
    new Promise((resolve, reject) => {
      const raw = net.connect({ host: '127.0.0.1', port: door.tlsPort }, () => {
        if (source !== undefined) raw.write(proxyV2({ source }));
        const socket = tls.connect({ socket: raw, servername: name, ca: root, ALPNProtocols: [alpn] }, () => resolve(socket));
        socket.on('error', reject);
      });
      raw.on('error', reject);
    });
  const http1Statuses = async (source: string, count: number): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      const socket = await through(source, 'http/1.1');
      const text = await new Promise<string>((resolve) => {
        let got = '';
        socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
        socket.on('close', () => resolve(got));
        socket.on('error', () => resolve(got));
        socket.write('GET /status/200 HTTP/1.1\r\nHost: control.test:8080\r\nConnection: close\r\n\r\n');
      });
      statuses.push(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]));
    }
    return statuses;
  };
  t.same(await http1Statuses('192.0.2.7', 3), [200, 200, 429], 'HTTP/1.1: 192.0.2.7 is limited after two (RATE_LIMIT_GENERAL=2)');
  t.same(await http1Statuses('192.0.2.8', 1), [200], '192.0.2.8 is its own client');
  // h2: three streams on one session, the header named 192.0.2.9; the client address is read through node:http2's socket proxies.
  const socket = await through('192.0.2.9', 'h2');
  t.equal(socket.alpnProtocol, 'h2');
  const session = http2.connect(`https://${name}`, { createConnection: () => socket });
  t.teardown(() => session.destroy());
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    statuses.push(await new Promise<number>((resolve, reject) => {
      const req = session.request({ ':path': '/status/200' });
      req.on('response', (headers) => resolve(Number(headers[':status'])));
      req.on('error', reject);
      req.resume();
    }));
  }
  t.same(statuses, [200, 200, 429], 'h2: 192.0.2.9 is limited after two, on one connection');
  await t.rejects(through(undefined, 'http/1.1'), 'a trusted peer without a PROXY header gets no handshake');
});

t.test("the control process as it runs: its admin port reports the leaf's expiry as chaos_tls_cert_expiry_seconds{mode=\"control\"}", async (t) => {
  const metricsPort = await freePort();
  const running = await startService(serviceFactory('control'), () => 0, testConfig({ TLS_DIR: dir, CONTROL_TLS_PORT: '0', METRICS_PORT: String(metricsPort) }), createLogger('control', 'silent'), 'control');
  t.teardown(() => running.stop(0));
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: metricsPort, path: '/metrics' }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
  const seconds = Number(/\nchaos_tls_cert_expiry_seconds\{mode="control"\} (-?\d+)\n/.exec(text)?.[1]);
  t.ok(seconds > 29 * 86_400 && seconds <= 30 * 86_400, `minted now, valid 30 days: ${seconds} s left`);
});
