// TLS chaos through the front door (issue 26, docs/front-door.md): the full
// stack as `make up` runs it, with real HAProxy and Redis, two chaos replicas
// sharing one TLS_DIR. HAProxy passes TLS through by server name to the
// replicas' TLS listeners with a PROXY v2 header first, so the client's
// address reaches the replica's limiter; it caps handshakes per address. The
// name control.tls.localhost goes the same way to the control replicas' TLS
// listeners: the twins over HTTP/2 (ALPN h2) or HTTP/1.1 through the front door.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { SecureClientSessionOptions } from 'node:http2';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import t from 'tap';
import { EXAMPLE_PLAN, renderHaproxyConfig } from '../../../proxy/haproxy-config.js';
import { EXAMPLE_TLS, TLS_HELLO_WAIT_MS } from '../../../proxy/haproxy-tls.js';
import { chromiumH2 } from '../../../scripts/scorecard/h2-clients.js';
import { h2Get } from '../../../scripts/scorecard/h2-node.js';
import { chromiumTrusting } from '../../../scripts/scorecard/tls-clients.js';
import { HANDSHAKE_TIMEOUT_MS } from '../../../services/chaos/tls/listener.js';
import { TLS_HANDSHAKE_MS } from '../../../shared/http/tls-door.js';
import { freePort } from '../../helpers/process.js';
import { proxyV2 } from '../../helpers/proxy-v2.js';
import { startStack } from '../../helpers/stack.js';

interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

function run(cmd: string, args: readonly string[], input = ''): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: 30_000, encoding: 'utf8' }, (error, out, err) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, out, err });
    });
    child.stdin?.end(input);
  });
}

t.test('the generated TLS frontend', async (t) => {
  t.equal(TLS_HELLO_WAIT_MS, HANDSHAKE_TIMEOUT_MS, "the edge waits for a hello as long as the replica's listener does");
  t.equal(TLS_HANDSHAKE_MS, HANDSHAKE_TIMEOUT_MS, "and control's TLS listener as long as chaos's");
  const text = renderHaproxyConfig({ ...EXAMPLE_PLAN, tls: EXAMPLE_TLS });
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-tls-check-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, plan] of [
    ['the local example with TLS', { ...EXAMPLE_PLAN, tls: EXAMPLE_TLS }],
    ['no per-address caps, no handshake cap', { ...EXAMPLE_PLAN, maxConnectionsPerIp: 0, tls: { ...EXAMPLE_TLS, handshakesPerIp: 0 } }],
  ] as const) {
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, renderHaproxyConfig(plan));
    const check = await run('haproxy', ['-c', '-f', file]);
    t.equal(check.code, 0, `haproxy -c accepts ${name}: ${check.err.trim().split('\n').slice(-2).join(' / ')}`);
  }
  t.match(text, /frontend fe_tls\n {2}mode tcp\n {2}bind 127\.0\.0\.1:8443\n/, 'a tcp frontend on FRONT_TLS_PORT');
  t.match(text, /tcp-request inspect-delay 10000ms\n[\s\S]*tcp-request content reject if !\{ req\.ssl_hello_type 1 \}/, 'it waits for a ClientHello and closes anything else');
  t.match(text, /reject if \{ var\(txn\.sni\) -m found \} !\{ var\(txn\.sni\) -m end \.tls\.localhost \}/, 'a name outside TLS_BASE is closed');
  t.match(text, /track-sc0 src table fe_edge/, 'open connections per address counted with the HTTP port');
  t.match(text, /reject if \{ sc_conn_rate\(2\) gt 100 \}/, 'handshakes per address capped');
  t.match(text, /backend be_chaos_tls[\s\S]*default-server send-proxy-v2[\s\S]*server chaos_tls1 127\.0\.0\.1:9121 check port 9111\n {2}server chaos_tls2 127\.0\.0\.1:9122 check port 9112/, 'each replica\'s TLS listener, PROXY v2, checked on its admin port');
  t.match(text, /use_backend be_control_tls if \{ var\(txn\.sni\) -m str control\.tls\.localhost \}\n[\s\S]*default_backend be_chaos_tls/, 'control.tls.localhost to control, before the default');
  t.match(text, /backend be_control_tls\n {2}mode tcp[\s\S]*default-server send-proxy-v2[\s\S]*server control_tls1 127\.0\.0\.1:9221 check port 9211\n {2}server control_tls2 127\.0\.0\.1:9222 check port 9212/, "each control replica's TLS listener, PROXY v2, checked on its admin port");
  const { controlReplicas: _none, ...chaosOnly } = EXAMPLE_TLS;
  t.notMatch(renderHaproxyConfig({ ...EXAMPLE_PLAN, tls: chaosOnly }), /be_control_tls/, 'no control route without control replicas\' TLS listeners');
  const bare = renderHaproxyConfig({ ...EXAMPLE_PLAN, maxConnectionsPerIp: 0, tls: { ...EXAMPLE_TLS, handshakesPerIp: 0 } });
  t.notMatch(bare, /track-sc/, 'no tracking when both caps are off');
  t.notMatch(renderHaproxyConfig(EXAMPLE_PLAN), /fe_tls|be_chaos_tls/, 'no TLS frontend without TLS');
});

interface TlsResult {
  /** The handshake's error code, or undefined when it completed. */
  readonly error: string | undefined;
  readonly authorized: boolean;
  readonly subject: string;
  /** What came back after the request (empty when none was sent or the handshake failed). */
  readonly text: string;
}

/** tls.connect takes net.connect's options too (its typings leave localAddress out). */
type FromAddress = tls.ConnectionOptions & { readonly localAddress?: string };

/** One TLS connection to `port` (the front door, or `socket` already open), from `localAddress`, sending `request` once secure. */
function tlsExchange(options: FromAddress & { readonly request?: string }): Promise<TlsResult> {
  return new Promise((resolve) => {
    let text = '';
    let done = false;
    let subject = '';
    let authorized = false;
    const socket = tls.connect({ host: '127.0.0.1', rejectUnauthorized: false, ...options } as tls.ConnectionOptions, () => {
      const cert = socket.getPeerCertificate();
      subject = Object.entries(cert.subject ?? {}).map(([k, v]) => `${k}=${String(v)}`).join(', ');
      authorized = socket.authorized;
      if (options.request !== undefined) socket.write(options.request);
      else socket.destroy();
    });
    const finish = (error: string | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ error, authorized, subject, text });
      socket.destroy();
    };
    const timer = setTimeout(() => finish('timeout'), 20_000);
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', (e: Error & { code?: string }) => finish(e.code ?? e.message));
    socket.on('close', () => finish(undefined));
  });
}

const request = (host: string, path = '/status/200'): string => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;

/** How a plain TCP connection that sends `bytes` ends: closed by the peer (with how many bytes back), or still open after `waitMs`. */
function rawTcp(port: number, bytes: Buffer, waitMs: number): Promise<{ how: 'closed' | 'open'; got: number }> {
  return new Promise((resolve) => {
    let got = 0;
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ how: 'open', got });
    }, waitMs);
    socket.on('data', (d: Buffer) => (got += d.length));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ how: 'closed', got });
    });
  });
}

t.test('TLS through the front door (two replicas, one TLS_DIR)', async (t) => {
  const tlsDir = mkdtempSync(join(tmpdir(), 'chaos-front-tls-'));
  t.teardown(() => rmSync(tlsDir, { recursive: true, force: true }));
  const frontTls = await freePort();
  const stack = await startStack(t, {
    TLS_DIR: tlsDir,
    FRONT_TLS_PORT: String(frontTls),
    RATE_LIMIT_GENERAL: '5',
    TLS_HANDSHAKES_PER_IP: '10',
    MAX_CONNECTIONS_PER_IP: '4',
    // On (any value: the full stack picks each control replica's private port), as make up sets it.
    CONTROL_TLS_PORT: '8445',
  });
  const banner = stack.supervisor.stdout();
  t.match(banner, `TLS: https://good.tls.localhost:${frontTls}/ and every mode in http://localhost:${stack.front}/tls/hosts.json`, 'make up prints the TLS URL');
  t.match(banner, `curl --cacert chaos-root.pem https://good.tls.localhost:${frontTls}/`, 'and the trust line');
  t.match(banner, `control twins over TLS (ALPN h2): https://control.tls.localhost:${frontTls}/`, 'and the control twins over TLS');
  const root = await new Promise<string>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: stack.front, path: '/tls/root.pem', headers: { Host: `localhost:${stack.front}` } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
  t.equal(root.trim(), readFileSync(join(tlsDir, 'ca-v1', 'root.pem'), 'utf8').trim(), 'the hub (a control replica) publishes the root kept in TLS_DIR');
  const rootFile = join(tlsDir, 'published-root.pem');
  writeFileSync(rootFile, root);
  const hostsJson = await new Promise<string>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: stack.front, path: '/tls/hosts.json', headers: { Host: `localhost:${stack.front}` } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
  t.match(hostsJson, `https://good.tls.localhost:${frontTls}/`, '/tls/hosts.json names the front TLS port');

  await t.test('each chaos replica serves a chain to the one published root, and reads a PROXY v2 header before the hello', async (t) => {
    const replicas = stack.replicas('chaos');
    t.equal(replicas.length, 2, 'two chaos replicas');
    for (const { pid } of replicas) {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const port = Number(environ.find((e) => e.startsWith('CHAOS_TLS_PORT='))?.split('=')[1]);
      // From the loopback, which the stack trusts (TRUST_PROXY): the header names the client.
      const socket = net.connect({ host: '127.0.0.1', port });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(proxyV2({ source: '192.0.2.77' }));
      const res = await tlsExchange({ socket, servername: 'good.tls.localhost', ca: root, rejectUnauthorized: true, request: request('good.tls.localhost') });
      t.equal(res.error, undefined, `replica ${pid}: verified against the published root`);
      t.match(res.text, /^HTTP\/1\.1 200 [\s\S]*X-Chaos-Tls-Mode: good\r\n/, `replica ${pid}: answers past the handshake`);
      const bare = await tlsExchange({ port, servername: 'good.tls.localhost' });
      t.ok(bare.error !== undefined && bare.subject === '', `replica ${pid}: a trusted peer without a PROXY header gets no handshake (${bare.error})`);
    }
  });

  await t.test('curl through the front door: the good twin passes with the root, the broken modes fail as curl says', async (t) => {
    // HTTP/1.1 asked for where the HTTP/1.1 bytes are asserted: offered h2 in ALPN, curl would take it (below).
    const curl = (mode: string, path = '/status/200', version = '--http1.1'): Promise<Run> =>
      run('curl', ['-sS', '-i', version, '--max-time', '20', '--cacert', rootFile, '--resolve', `${mode}.tls.localhost:${frontTls}:127.0.0.1`, `https://${mode}.tls.localhost:${frontTls}${path}`]);
    const good = await curl('good');
    t.equal(good.code, 0, `good: curl exits 0 ${good.err}`);
    t.match(good.out, /^HTTP\/1\.1 200 [\s\S]*X-Chaos-Tls-Mode: good\r\n/, 'good: 200, naming the mode');
    // HAProxy passes the hello through untouched, so ALPN h2 reaches the replica too (docs/http2.md).
    const h2 = await curl('good', '/status/200', '--http2');
    t.equal(h2.code, 0, `good over HTTP/2: curl exits 0 ${h2.err}`);
    t.match(h2.out, /^HTTP\/2 200 \r\n[\s\S]*x-chaos-tls-mode: good\r\n/, 'good: ALPN h2 through the front door, the mode named');
    const truncate = await curl('good', '/truncate?at=10');
    t.match(truncate.out, /X-Chaos-Endpoint: \/truncate/, 'every chaos endpoint behind the mode host');
    for (const [mode, code, phrase] of [
      ['expired', 60, /certificate has expired/],
      ['self-signed', 60, /self-signed certificate/],
      ['incomplete-chain', 60, /unable to get local issuer certificate/],
      ['tls1-1', 35, /./],
    ] as const) {
      const res = await curl(mode);
      t.equal(res.code, code, `${mode}: curl exits ${code}`);
      t.match(res.err, phrase, `${mode}: ${res.err.trim().split('\n')[0]}`);
    }
  });

  await t.test('the control twins through the front door: control.tls.localhost passed through to control, h2 and HTTP/1.1, the whole body', async (t) => {
    const name = 'control.tls.localhost';
    // Each client from an address of its own: RATE_LIMIT_GENERAL=5 counts per address, and the limiter gets the real one (below).
    const curl = (path: string, version: string, from: string): Promise<Run> =>
      run('curl', ['-sS', '-i', version, '--interface', from, '--max-time', '20', '--cacert', rootFile, '--resolve', `${name}:${frontTls}:127.0.0.1`, `https://${name}:${frontTls}${path}`]);
    const bodyOf = (out: string): { length: number; promised: number } => {
      const split = out.indexOf('\r\n\r\n');
      return { length: Buffer.byteLength(out.slice(split + 4), 'latin1'), promised: Number(/content-length: (\d+)/i.exec(out.slice(0, split))?.[1]) };
    };
    const h2 = await curl('/h2/rst?at=100', '--http2', '127.0.0.11');
    t.equal(h2.code, 0, `curl --http2: exit 0 ${h2.err}`);
    t.match(h2.out, /^HTTP\/2 200 \r\n[\s\S]*x-chaos-origin: control\r\n/, 'h2 agreed with a control replica: 200 from the twin');
    const h2Body = bodyOf(h2.out);
    t.equal(h2Body.length, h2Body.promised, `the whole body (${h2Body.length} bytes)`);
    const h1 = await curl('/status/200', '--http1.1', '127.0.0.11');
    t.match(h1.out, /^HTTP\/1\.1 200 [\s\S]*X-Chaos-Origin: control\r\n/, 'HTTP/1.1 over the same name');
    const node = await h2Get(`https://127.0.0.1:${frontTls}`, '/h2/stall', { connect: { ca: root, servername: name, localAddress: '127.0.0.12' } as SecureClientSessionOptions });
    t.equal(node.status, 200, 'Node http2.connect: 200');
    t.equal(node.body.length, Number(node.headers['content-length']), `Node: the whole body (${node.body.length} bytes)`);
    const browser = await chromiumTrusting(rootFile, mkdtempSync(join(tlsDir, 'home-')));
    t.teardown(() => browser.close());
    t.match(await chromiumH2(browser, `https://${name}:${frontTls}/h2/rst?at=100`), /^h2 200, \d+ bytes$/, 'Chromium: h2, 200, the body');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push(Number(/^HTTP\/1\.1 (\d{3})/.exec((await curl('/status/200', '--http1.1', '127.0.0.13')).out)?.[1]));
    t.same(statuses, [200, 200, 200, 200, 200, 429, 429], "the client's address reaches control's limiter through the PROXY v2 header: 127.0.0.13 limited after five");
  });

  await t.test('a hello without SNI gets the no-sni default; a name outside TLS_BASE, or no hello, is closed', async (t) => {
    const s = await run('openssl', ['s_client', '-connect', `127.0.0.1:${frontTls}`, '-noservername'], 'Q\n');
    t.match(s.out, /subject=CN = no-sni\.invalid, OU = chaos:no-sni/, 'openssl -noservername: the no-sni certificate');
    const node = await tlsExchange({ port: frontTls, servername: '', request: request('127.0.0.1') });
    t.match(node.text, /X-Chaos-Tls-Mode: no-sni\r\n/, 'Node without a server name: served as no-sni');
    const other = await tlsExchange({ port: frontTls, servername: 'example.com' });
    t.ok(other.error !== undefined && other.subject === '', `a hello naming example.com gets no certificate (${other.error})`);
    const plain = await rawTcp(frontTls, Buffer.from(request('good.tls.localhost')), 5000);
    t.same(plain, { how: 'closed', got: 0 }, 'plain HTTP on the TLS port: closed at once, nothing sent');
  });

  await t.test("the client's address reaches the replica's limiter: a per-IP cap bites on TLS, per address", async (t) => {
    const statuses: number[] = [];
    let limited = '';
    for (let i = 0; i < 7; i++) {
      const res = await tlsExchange({ port: frontTls, servername: 'good.tls.localhost', localAddress: '127.0.0.2', request: request('good.tls.localhost') });
      statuses.push(Number(/^HTTP\/1\.1 (\d{3})/.exec(res.text)?.[1]));
      if (statuses.at(-1) === 429) limited = res.text;
    }
    t.same(statuses, [200, 200, 200, 200, 200, 429, 429], 'RATE_LIMIT_GENERAL=5: 127.0.0.2 is limited after five');
    t.match(limited, /Retry-After: \d+/, 'the real 429, with Retry-After');
    t.notMatch(limited, /X-Chaos-/i, 'and no X-Chaos-* line');
    const other = await tlsExchange({ port: frontTls, servername: 'good.tls.localhost', localAddress: '127.0.0.3', request: request('good.tls.localhost') });
    t.match(other.text, /^HTTP\/1\.1 200 /, '127.0.0.3 is its own client: 200');
  });

  await t.test('open connections per address are counted with the HTTP port (MAX_CONNECTIONS_PER_IP=4)', async (t) => {
    const held: net.Socket[] = [];
    t.teardown(() => held.forEach((s) => s.destroy()));
    for (let i = 0; i < 2; i++) {
      const plain = net.connect({ host: '127.0.0.1', port: stack.front, localAddress: '127.0.0.6' });
      plain.on('error', () => undefined);
      held.push(plain);
    }
    for (let i = 0; i < 2; i++) {
      const secure = tls.connect({ host: '127.0.0.1', port: frontTls, servername: 'good.tls.localhost', ca: root, localAddress: '127.0.0.6' } as FromAddress);
      held.push(secure);
      const opened = await new Promise<string>((resolve) => {
        secure.once('secureConnect', () => resolve('secure'));
        secure.once('error', (error) => resolve(error.message));
        setTimeout(() => resolve('no handshake in 20 s'), 20_000).unref();
      });
      t.equal(opened, 'secure', `TLS connection ${i + 1} from 127.0.0.6 is open`);
    }
    const fifth = await tlsExchange({ port: frontTls, servername: 'good.tls.localhost', localAddress: '127.0.0.6' });
    t.ok(fifth.error !== undefined && fifth.subject === '', `a fifth connection from 127.0.0.6 (two plain, two TLS open) is refused (${fifth.error})`);
    const elsewhere = await tlsExchange({ port: frontTls, servername: 'good.tls.localhost', localAddress: '127.0.0.7' });
    t.equal(elsewhere.error, undefined, 'another address connects');
  });

  await t.test('handshakes per address are capped (TLS_HANDSHAKES_PER_IP=10 per 10 s); another address is unaffected', async (t) => {
    let completed = 0;
    for (let i = 0; i < 16; i++) {
      const res = await tlsExchange({ port: frontTls, servername: 'good.tls.localhost', localAddress: '127.0.0.4' });
      if (res.error === undefined && res.subject !== '') completed++;
    }
    t.equal(completed, 10, `16 handshakes from 127.0.0.4 in a burst: the first ten complete (${completed})`);
    const other = await tlsExchange({ port: frontTls, servername: 'good.tls.localhost', ca: root, rejectUnauthorized: true, localAddress: '127.0.0.5' });
    t.ok(other.error === undefined && other.authorized, '127.0.0.5 completes its handshake');
  });
});
