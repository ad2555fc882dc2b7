// TLS chaos (issue 26) on real sockets: the chaos server's TLS listener with
// a test PKI made in a temporary TLS_DIR, its root fetched from the hub's
// /tls/root.pem, and each mode met by curl, openssl s_client, Node's
// tls.connect and Python's ssl, each held to what /tls/hosts.json says it
// reports (driven by scripts/scorecard/tls-clients.ts, as the client
// scorecard drives them). The good twin passes all four; past each handshake every mode's
// host serves chaos endpoints naming the mode; the handshake's bounds hold.
import { verify, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import t from 'tap';
import { chromiumGoto, chromiumTrusting, nodeTlsConnect, pythonTls, runProgram, type NodeTlsSeen } from '../../scripts/scorecard/tls-clients.js';
import { TlsListener } from '../../services/chaos/tls/listener.js';
import { ChaosTlsService } from '../../services/chaos/tls/service.js';
import { serviceFactory } from '../../services/service-factories.js';
import type { Config } from '../../shared/config/config.js';
import { createLogger } from '../../shared/config/log.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { TlsMaterial } from '../../shared/tls/material.js';
import { TLS_MODE_INFO, TLS_MODES, tlsHostOf, type TlsMode } from '../../shared/tls/modes.js';
import { readOcspResponse } from '../../shared/tls/ocsp.js';
import { startChaos, stopAtTeardown, testConfig } from '../helpers/servers.js';

const run = runProgram;

const dir = mkdtempSync(join(tmpdir(), 'chaos-tls-dir-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const files = mkdtempSync(join(tmpdir(), 'chaos-tls-files-'));
t.teardown(() => rmSync(files, { recursive: true, force: true }));

interface Started {
  readonly config: Config;
  readonly port: number;
  readonly hubPort: number;
  readonly material: TlsMaterial;
}

async function startTls(env: Readonly<Record<string, string>> = {}): Promise<Started> {
  const config = testConfig({ TLS_DIR: dir, RATE_LIMIT_INFINITE: '0', HOLD_MS: '1000', ...env });
  const { server } = await startChaos(t, { config });
  const material = await TlsMaterial.load(config);
  const listener = new TlsListener(server, material, createLogger('chaos', 'silent'));
  const port = await listener.listen(0, '127.0.0.1');
  t.teardown(() => listener.close());
  const store = new MemoryStore();
  const control = serviceFactory('control')(config, createLogger('control', 'silent'), store);
  stopAtTeardown(t, control, store);
  const hubPort = await control.listen(0, '127.0.0.1');
  return { config, port, hubPort, material };
}

function hubGet(port: number, path: string, accept = '*/*'): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers: { Host: 'hub.test:8080', Accept: accept } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      })
      .on('error', reject);
  });
}

const stack = await startTls();
const BASE = stack.config.tls.base;
const rootFile = join(files, 'root.pem');
const clientFile = join(files, 'client.pem');
const crlFile = join(files, 'crl.pem');
const root = await hubGet(stack.hubPort, '/tls/root.pem');
writeFileSync(rootFile, root.body);
writeFileSync(clientFile, (await hubGet(stack.hubPort, '/tls/client.pem')).body);
writeFileSync(crlFile, (await hubGet(stack.hubPort, '/tls/crl.pem')).body);
const host = (mode: TlsMode): string => tlsHostOf(mode, BASE);
const url = (mode: TlsMode, path = '/status/200'): string => `https://${host(mode)}:${stack.port}${path}`;
const resolve = (mode: TlsMode): string[] => ['--resolve', `${host(mode)}:${stack.port}:127.0.0.1`];

t.test('the test root is kept in TLS_DIR (0600) and only its certificate is published', async (t) => {
  t.equal(root.status, 200);
  t.match(root.body, /^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
  t.notMatch(root.body, /PRIVATE KEY/);
  for (const name of ['root-key.pem', 'intermediate-key.pem', 'client-ca-key.pem', 'root.pem']) {
    t.equal(statSync(join(dir, 'ca-v1', name)).mode & 0o777, 0o600, `${name} is 0600`);
  }
  const text = await run('openssl', ['x509', '-in', rootFile, '-noout', '-text']);
  t.match(text.out, /Name Constraints: critical\s+Permitted:\s+DNS:tls\.localhost/, 'name-constrained to TLS_BASE');
  t.match(text.out, /CA:TRUE/);
  const days = (new Date(/Not After : (.*)/.exec(text.out)?.[1] ?? '').getTime() - Date.now()) / 86_400_000;
  t.ok(days > 360 && days <= 366, `one year (${Math.round(days)} days left)`);
  const again = await TlsMaterial.load(stack.config);
  t.equal(again.pki.root.certPem, stack.material.pki.root.certPem, 'a second process reads the same root');
});

t.test('/tls/hosts.json lists every mode, available, with its host and URL', async (t) => {
  const answer = await hubGet(stack.hubPort, '/tls/hosts.json');
  t.equal(answer.status, 200);
  t.equal(answer.type, 'application/json');
  const doc = JSON.parse(answer.body) as { modes: { mode: string; host: string; url: string; available: boolean }[] };
  t.same(doc.modes.map((m) => m.mode), [...TLS_MODES]);
  for (const m of doc.modes) {
    t.equal(m.host, `${m.mode}.tls.localhost`);
    t.equal(m.available, !stack.material.unavailable.has(m.mode as TlsMode), `${m.mode}: available as the self-check found`);
  }
  t.same([...stack.material.unavailable.keys()], [], `every mode is available on Node ${process.versions.node} / OpenSSL ${process.versions.openssl}`);
});

t.test('an unavailable mode fails its handshake: never a wrong lie', async (t) => {
  // The same material, with expired as if the self-check had found it wrong in this runtime.
  const material = Object.create(stack.material) as TlsMaterial;
  material.context = (mode) => (mode === 'expired' ? undefined : stack.material.context(mode));
  const { server } = await startChaos(t, { config: stack.config });
  const listener = new TlsListener(server, material, createLogger('chaos', 'silent'));
  const port = await listener.listen(0, '127.0.0.1');
  t.teardown(() => listener.close());
  const refused = await run('curl', ['-sS', '-k', '-o', '/dev/null', '--resolve', `${host('expired')}:${port}:127.0.0.1`, `https://${host('expired')}:${port}/status/200`]);
  t.equal(refused.code, 35, `curl -k exit 35 (${refused.err.trim()})`);
  const good = await run('curl', ['-sS', '-o', '/dev/null', '--cacert', rootFile, '--resolve', `${host('good')}:${port}:127.0.0.1`, `https://${host('good')}:${port}/status/200`]);
  t.equal(good.code, 0, 'the others are served');
});

t.test('the hub catalog has a tls category: every mode with its URL, the root and the host list', async (t) => {
  const json = JSON.parse((await hubGet(stack.hubPort, '/', 'application/json')).body) as { tls?: { category: string; root: string; hosts_json: string; modes: { mode: string; url: string }[] } };
  t.equal(json.tls?.category, 'tls');
  t.equal(json.tls?.root, 'http://hub.test:8080/tls/root.pem');
  t.same(json.tls?.modes.map((m) => m.url), TLS_MODES.map((mode) => `https://${mode}.tls.localhost:8444/`), 'PUBLIC_TLS_PORT defaults to CHAOS_TLS_PORT');
  const html = (await hubGet(stack.hubPort, '/', 'text/html')).body;
  t.match(html, /<section class="host" id="tls">/);
  t.equal((html.match(/<article class="ep" id="tls-/g) ?? []).length, TLS_MODES.length, 'one entry per mode');
});

/** curl's words "(NN) phrase": exit code NN and the phrase on stderr; none: it connects. */
function curlExpect(mode: TlsMode): { code: number; phrase: string } {
  const words = TLS_MODE_INFO[mode].clients.curl;
  if (words === undefined) return { code: 0, phrase: '' };
  const m = /^\((\d+)\)\s*(.*)$/.exec(words);
  return { code: Number(m?.[1]), phrase: m?.[2] ?? '' };
}

const AVAILABLE = TLS_MODES.filter((mode) => !stack.material.unavailable.has(mode));

t.test('curl, trusting the published root: each mode gives its exit code and message', async (t) => {
  for (const mode of AVAILABLE) {
    const result = await run('curl', ['-sS', '-o', '/dev/null', '--max-time', '20', '--cacert', rootFile, ...resolve(mode), url(mode)]);
    // revoked: curl checks no revocation by default (its words name --cert-status, tested below).
    const { code, phrase } = mode === 'revoked' ? { code: 0, phrase: '' } : curlExpect(mode);
    t.equal(result.code, code, `${mode}: curl exit ${code} (${result.err.trim()})`);
    t.ok(result.err.includes(phrase), `${mode}: "${phrase}" in ${JSON.stringify(result.err.trim())}`);
  }
});

/** Node's error code for a mode (none: it connects and reads a response). */
const nodeConnect = (mode: TlsMode, options: tls.ConnectionOptions = {}): Promise<NodeTlsSeen> => nodeTlsConnect(stack.port, host(mode), { ca: root.body, ...options });

t.test('Node tls.connect, trusting the published root', async (t) => {
  for (const mode of AVAILABLE) {
    const { code } = await nodeConnect(mode);
    t.equal(code, TLS_MODE_INFO[mode].clients.node, `${mode}: ${String(code)}`);
  }
});

t.test('Python ssl, trusting the published root', async (t) => {
  for (const mode of AVAILABLE) {
    const words = TLS_MODE_INFO[mode].clients.python;
    const result = await pythonTls('python3', host(mode), stack.port, rootFile);
    // revoked: Python checks no revocation by default (its words name the CRL check, tested below).
    if (words === undefined || mode === 'revoked') t.match(result.out, /^OK HTTP\/1\.1 200/, `${mode}: connects (${result.out.trim()})`);
    else t.ok(result.out.startsWith('ERR ') && result.out.includes(words.replace(/ \(.*\)$/, '')), `${mode}: ${result.out.trim()}`);
  }
  const revoked = await pythonTls('python3', host('revoked'), stack.port, rootFile, crlFile);
  t.match(revoked.out, /^ERR .*certificate revoked/, `revoked with the hub's CRL: ${revoked.out.trim()}`);
  const good = await pythonTls('python3', host('good'), stack.port, rootFile, crlFile);
  t.match(good.out, /^OK HTTP\/1\.1 200/, 'good passes the same CRL check');
});

t.test('openssl s_client, trusting the published root', async (t) => {
  for (const mode of AVAILABLE) {
    const words = TLS_MODE_INFO[mode].clients.openssl;
    const result = await run('openssl', ['s_client', '-connect', `127.0.0.1:${stack.port}`, '-servername', host(mode), '-verify_hostname', host(mode), '-CAfile', rootFile], '');
    const said = `${result.out}\n${result.err}`;
    if (mode === 'good') t.match(said, /Verify return code: 0 \(ok\)/, 'good: verify ok');
    else if (words === undefined || mode === 'revoked' || mode === 'close-without-notify' || mode === 'client-cert') continue;
    else if (/^\d+ \(/.test(words)) t.ok(said.includes(`Verify return code: ${words}`), `${mode}: Verify return code: ${words}`);
    else t.ok(said.includes(words), `${mode}: ${words}`);
  }
  const revoked = await run('openssl', ['s_client', '-connect', `127.0.0.1:${stack.port}`, '-servername', host('revoked'), '-CAfile', rootFile, '-CRL', crlFile, '-crl_check'], '');
  t.match(revoked.out, /Verify return code: 23 \(certificate revoked\)/, 'revoked with the CRL: 23');
});

/** The OCSP response Node's tls.connect({requestOCSP: true}) is stapled (null: none), read once the handshake is done. */
function stapledToNode(mode: TlsMode): Promise<Buffer | null> {
  return new Promise((done, fail) => {
    let stapled: Buffer | null = null;
    const socket = tls.connect({ host: '127.0.0.1', port: stack.port, servername: host(mode), ca: root.body, requestOCSP: true });
    socket.on('OCSPResponse', (response: Buffer | null) => (stapled = response));
    socket.on('secureConnect', () => {
      socket.destroy();
      done(stapled);
    });
    socket.on('error', fail);
  });
}

t.test('revoked staples an OCSP response saying revoked, signed by the intermediate; good staples none', async (t) => {
  const openssl = await run('openssl', ['s_client', '-connect', `127.0.0.1:${stack.port}`, '-servername', host('revoked'), '-status', '-CAfile', rootFile], '');
  t.match(openssl.out, /OCSP Response Status: successful/, 'openssl s_client -status: a response');
  t.match(openssl.out, /Cert Status: revoked/, 'openssl s_client -status: Cert Status: revoked');
  t.match(openssl.out, /Revocation Reason: keyCompromise/);
  // curl verifies the response (signer, chain to the trusted root, certificate id, times) before it reads the status.
  const curl = await run('curl', ['-sS', '-o', '/dev/null', '--max-time', '20', '--cert-status', '--cacert', rootFile, ...resolve('revoked'), url('revoked')]);
  const words = curlExpect('revoked');
  t.equal(curl.code, words.code, `curl --cert-status: exit ${words.code} (${curl.err.trim()})`);
  t.ok(curl.err.includes(words.phrase.replace(/, with --cert-status$/, '')), 'curl names the revocation, as /tls/hosts.json says');
  const stapled = await stapledToNode('revoked');
  if (!t.ok(stapled, 'Node: an OCSPResponse event with a response') || stapled === null) return;
  const reading = readOcspResponse(stapled);
  t.equal(reading.status, 'revoked', 'Node: the response parses as revoked');
  t.equal(reading.serialHex, stack.material.pki.revokedSerial, 'about the revoked leaf (the serial the CRL lists)');
  t.equal(reading.revocationReason, 'keyCompromise');
  t.ok(verify('sha256', reading.tbsDer, new X509Certificate(stack.material.pki.intermediate.certPem).publicKey, reading.signature), 'signed by the intermediate');

  t.equal(await stapledToNode('good'), null, 'good staples nothing (OCSP-free, as issue 26 asks)');
  const goodOpenssl = await run('openssl', ['s_client', '-connect', `127.0.0.1:${stack.port}`, '-servername', host('good'), '-status', '-CAfile', rootFile], '');
  t.match(goodOpenssl.out, /OCSP response: no response sent/, 'openssl -status on good: no response sent');
  const goodCurl = await run('curl', ['-sS', '-o', '/dev/null', '--max-time', '20', '--cert-status', '--cacert', rootFile, ...resolve('good'), url('good')]);
  t.equal(goodCurl.code, 91, `curl --cert-status on good: exit 91, it requires a staple (${goodCurl.err.trim()})`);
  t.match(goodCurl.err, /No OCSP response received/);
});

t.test('the good twin passes every client; its chain and version', async (t) => {
  const curl = await run('curl', ['-sS', '-D', '-', '-o', '/dev/null', '--cacert', rootFile, ...resolve('good'), url('good')]);
  t.equal(curl.code, 0);
  // curl offers h2 and good agrees it (issue 28): the field comes lowercase over HTTP/2.
  t.match(curl.out, /^HTTP\/2 200 \r\n[\s\S]*\r\nx-chaos-tls-mode: good\r\n/);
  const s = await run('openssl', ['s_client', '-connect', `127.0.0.1:${stack.port}`, '-servername', host('good'), '-CAfile', rootFile, '-showcerts'], '');
  t.match(s.out, /Protocol *: TLSv1\.3|New, TLSv1\.3/, 'TLS 1.3');
  t.equal((s.out.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length, 2, 'leaf and intermediate');
  const node = await nodeConnect('good');
  t.equal(node.code, undefined);
  t.match(node.head, /^HTTP\/1\.1 200 /);
});

/** Past the handshake (verification off, old versions and client identity allowed), each mode's host serves chaos. */
t.test('every mode serves chaos endpoints past its handshake, naming the mode', async (t) => {
  for (const mode of AVAILABLE) {
    const options: tls.ConnectionOptions = { rejectUnauthorized: false, minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' };
    const identity = mode === 'client-cert' ? { cert: (await hubGet(stack.hubPort, '/tls/client.pem')).body, key: (await hubGet(stack.hubPort, '/tls/client.pem')).body } : {};
    const { code, ou, head } = await nodeConnect(mode, { ...options, ...identity });
    t.equal(code, undefined, `${mode}: no error`);
    t.equal(ou, `chaos:${mode}`, `${mode}: subject OU`);
    t.match(head, /^HTTP\/1\.1 200 /, `${mode}: 200`);
    t.match(head, new RegExp(`\\r\\nX-Chaos-Tls-Mode: ${mode}\\r\\n`), `${mode}: X-Chaos-Tls-Mode`);
    if (mode === 'client-cert') t.match(head, /\r\nX-Chaos-Tls-Client-Subject: CN=chaos test client, OU=chaos:client-cert/, 'the client subject echoed');
  }
  // The truncate lie is HTTP/1.1 bytes: curl is held to HTTP/1.1 (over h2 the endpoint is a real 421).
  const truncate = await run('curl', ['-sS', '-k', '--http1.1', '-o', '/dev/null', ...resolve('expired'), url('expired', '/truncate')]);
  t.equal(truncate.code, 18, 'https://expired…/truncate: curl -k gets the truncate lie (18)');
  const noSni = await nodeConnect('good', { servername: '', rejectUnauthorized: false });
  t.equal(noSni.ou, 'chaos:no-sni', 'a hello without SNI gets the no-sni certificate');
});

t.test('alpn-lie picks h2 when offered and speaks HTTP/1.1; close-without-notify sends no close_notify', async (t) => {
  const offered = await nodeConnect('alpn-lie', { ALPNProtocols: ['h2', 'http/1.1'] });
  t.match(offered.head, /^HTTP\/1\.1 200 /, 'HTTP/1.1 bytes');
  const alpn = await new Promise<string | false>((done) => {
    const s = tls.connect({ host: '127.0.0.1', port: stack.port, servername: host('alpn-lie'), ca: root.body, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      done(s.alpnProtocol ?? false);
      s.destroy();
    });
  });
  t.equal(alpn, 'h2', 'ALPN selected h2');
  const http1 = await run('curl', ['-sS', '-o', '/dev/null', '--http1.1', '--cacert', rootFile, ...resolve('alpn-lie'), url('alpn-lie')]);
  t.equal(http1.code, 0, 'a client offering only http/1.1 is served');
  const s = await run('openssl', ['s_client', '-connect', `127.0.0.1:${stack.port}`, '-servername', host('close-without-notify'), '-CAfile', rootFile, '-quiet'], 'GET /status/200 HTTP/1.1\r\nHost: chaos.test:8080\r\nConnection: close\r\n\r\n');
  t.match(s.err, /unexpected eof while reading/, 'openssl: unexpected eof');
  const g = await run('openssl', ['s_client', '-connect', `127.0.0.1:${stack.port}`, '-servername', host('good'), '-CAfile', rootFile, '-quiet'], 'GET /status/200 HTTP/1.1\r\nHost: chaos.test:8080\r\nConnection: close\r\n\r\n');
  t.notMatch(g.err, /unexpected eof/, 'the good twin ends with close_notify');
});

/** Opens a TCP connection to the TLS port, writes `bytes`, and says how (and after how long) the server ended it. */
function rawTcp(port: number, bytes: Buffer, waitMs: number): Promise<{ how: 'closed' | 'open'; ms: number; got: number }> {
  return new Promise((done) => {
    const started = Date.now();
    let got = 0;
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      done({ how: 'open', ms: Date.now() - started, got });
    }, waitMs);
    socket.on('data', (chunk: Buffer) => (got += chunk.length));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      done({ how: 'closed', ms: Date.now() - started, got });
    });
  });
}

t.test('bounds: garbage hello, 64 KiB SNI, stalled handshake, per-IP cap', async (t) => {
  const garbage = await rawTcp(stack.port, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), 15_000);
  t.equal(garbage.how, 'closed', `a plaintext request on the TLS port is closed (${garbage.ms} ms)`);
  // A ClientHello whose server_name is 64 KiB: more than a hello may be; OpenSSL refuses it.
  const name = Buffer.alloc(65_536, 0x61);
  const sni = Buffer.concat([Buffer.from([0x00, 0x00]), u16(name.length + 5), u16(name.length + 3), Buffer.from([0x00]), u16(name.length), name]);
  const body = Buffer.concat([Buffer.from([0x03, 0x03]), Buffer.alloc(32, 1), Buffer.from([0x00]), u16(2), Buffer.from([0x13, 0x01]), Buffer.from([0x01, 0x00]), u16(sni.length), sni]);
  const hello = Buffer.concat([Buffer.from([0x01, (body.length >> 16) & 0xff, (body.length >> 8) & 0xff, body.length & 0xff]), body]);
  const records: Buffer[] = [];
  for (let at = 0; at < hello.length; at += 16_384) {
    const part = hello.subarray(at, at + 16_384);
    records.push(Buffer.from([0x16, 0x03, 0x01]), u16(part.length), part);
  }
  const big = await rawTcp(stack.port, Buffer.concat(records), 15_000);
  t.equal(big.how, 'closed', `a 64 KiB SNI is refused and closed (${big.ms} ms)`);
  const stalled = await rawTcp(stack.port, Buffer.alloc(0), 30_000);
  t.equal(stalled.how, 'closed', 'a stalled handshake is closed');
  t.ok(stalled.ms >= 9_000 && stalled.ms < 25_000, `at the 10 s handshake timeout (${stalled.ms} ms)`);
  t.equal((await nodeConnect('good')).code, undefined, 'the listener still serves');
});

function u16(n: number): Buffer {
  return Buffer.from([(n >> 8) & 0xff, n & 0xff]);
}

t.test('the per-IP connection cap counts TLS connections before the handshake', async (t) => {
  const capped = await startTls({ MAX_CONNECTIONS_PER_IP: '3' });
  const held = await Promise.all(Array.from({ length: 3 }, () => new Promise<net.Socket>((done) => {
    const s = net.connect({ host: '127.0.0.1', port: capped.port }, () => done(s));
  })));
  const fourth = await rawTcp(capped.port, Buffer.alloc(0), 5_000);
  t.equal(fourth.how, 'closed', 'the fourth connection is closed at once');
  t.ok(fourth.ms < 4_000, `${fourth.ms} ms`);
  // Closed before any hello: each must give its slot back (a half-open pre-handshake socket kept it).
  for (const s of held) s.destroy();
  await new Promise((r) => setTimeout(r, 1000));
  const after = await new Promise<string | undefined>((done) => {
    const s = tls.connect({ host: '127.0.0.1', port: capped.port, servername: host('good'), ca: root.body }, () => {
      done(undefined);
      s.destroy();
    });
    s.on('error', (e: Error & { code?: string }) => done(e.code));
  });
  t.equal(after, undefined, `served again once they close (${String(after)})`);
});

t.test('the chaos service with TLS_DIR: both listeners, the expiry gauge, and a clean stop', async (t) => {
  const config = testConfig({ TLS_DIR: dir, CHAOS_TLS_PORT: '0' });
  const store = new MemoryStore();
  const service = serviceFactory('chaos')(config, createLogger('chaos', 'silent'), store);
  t.ok(service instanceof ChaosTlsService, 'TLS_DIR set: the chaos service serves TLS too');
  const plainPort = await service.listen(0, '127.0.0.1');
  const tlsService = service as ChaosTlsService;
  t.ok(tlsService.tlsPort !== undefined && tlsService.tlsPort > 0, `TLS on port ${String(tlsService.tlsPort)}`);
  const served = await run('curl', ['-sS', '-D', '-', '-o', '/dev/null', '--cacert', rootFile, '--resolve', `${host('good')}:${tlsService.tlsPort}:127.0.0.1`, `https://${host('good')}:${tlsService.tlsPort}/status/200`]);
  t.match(served.out, /\r\nx-chaos-tls-mode: good\r\n/i);
  const plain = await run('curl', ['-sS', '-D', '-', '-o', '/dev/null', `http://127.0.0.1:${plainPort}/status/200`]);
  t.notMatch(plain.out, /X-Chaos-Tls-Mode/, 'plain responses name no TLS mode');
  const expiry = tlsService.tlsCertExpiry();
  t.ok((expiry.get('good') ?? 0) > 0 && (expiry.get('expired') ?? 0) < 0, 'good positive, expired negative');
  await service.shutdown(0);
  await store.close();
  const after = await rawTcp(tlsService.tlsPort as number, Buffer.alloc(0), 2_000);
  t.ok(after.how === 'closed' && after.got === 0, 'the TLS port is closed after shutdown');
  const plainStore = new MemoryStore();
  t.equal(serviceFactory('chaos')(testConfig(), createLogger('chaos', 'silent'), plainStore) instanceof ChaosTlsService, false, 'without TLS_DIR: the plain chaos server alone');
  await plainStore.close();
});

t.test('Chromium, the root in an NSS database made by the test: each mode gives its net error', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'chaos-tls-home-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const browser = await chromiumTrusting(rootFile, home);
  t.teardown(() => browser.close());
  for (const mode of AVAILABLE) {
    const said = await chromiumGoto(browser, url(mode));
    // client-cert: the TLS 1.3 alert races the close that follows it (Chromium has sent its request already); either may arrive first.
    const expected = mode === 'client-cert' && said === 'net::ERR_SOCKET_NOT_CONNECTED' ? said : (TLS_MODE_INFO[mode].clients.chromium ?? 'ok');
    t.equal(said, expected, `${mode}: ${said}`);
  }
});
