// ALPN h2 on the chaos TLS listener (issue 28): `good` and the certificate
// modes agree h2 when offered and the connection goes to the chaos HTTP/2
// session (x-chaos-tls-mode on its responses, the /h2/* lies over TLS);
// alpn-lie keeps its lie (h2 agreed, HTTP/1.1 spoken); the TLS 1.0/1.1 and
// close-without-notify modes agree http/1.1 only. Met by Node's
// http2.connect, curl and nghttp, each trusting the published root.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import t from 'tap';
import { runProgram } from '../../../scripts/scorecard/tls-clients.js';
import { TlsListener } from '../../../services/chaos/tls/listener.js';
import { createLogger } from '../../../shared/config/log.js';
import { TlsMaterial } from '../../../shared/tls/material.js';
import { tlsHostOf, type TlsMode } from '../../../shared/tls/modes.js';
import { h2Get } from '../../../scripts/scorecard/h2-node.js';
import { startChaos, testConfig } from '../../helpers/servers.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-alpn-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const config = testConfig({ TLS_DIR: dir });
const { server } = await startChaos(t, { config, idleTimeoutMs: 2000 });
const material = await TlsMaterial.load(config);
const listener = new TlsListener(server, material, createLogger('chaos', 'silent'));
const port = await listener.listen(0, '127.0.0.1');
t.teardown(() => listener.close());
const root = material.pki.root.certPem;
const rootFile = join(dir, 'published-root.pem');
writeFileSync(rootFile, root);
const host = (mode: TlsMode): string => tlsHostOf(mode, config.tls.base);

/** What ALPN agrees for `mode` when a client offers h2 and http/1.1. */
function agreed(mode: TlsMode): Promise<string | false> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: host(mode), ca: root, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      resolve(socket.alpnProtocol ?? false);
      socket.destroy();
    });
    socket.on('error', () => resolve(false));
  });
}

const tlsOrigin = (mode: TlsMode): string => `https://${host(mode)}:${port}`;
/** Node connects to the address and names the mode's host in SNI (and checks the certificate against it). */
const nodeOrigin = `https://127.0.0.1:${port}`;
const connectTo = (mode: TlsMode, verify = true): http2.SecureClientSessionOptions => ({
  ca: root,
  servername: host(mode),
  rejectUnauthorized: verify,
});

t.test('ALPN: h2 for good and the certificate modes, http/1.1 where h2 would be a second lie, h2 for alpn-lie', async (t) => {
  for (const mode of ['good', 'expired', 'self-signed', 'wrong-host', 'revoked', 'no-sni'] as const) t.equal(await agreed(mode), 'h2', mode);
  t.equal(await agreed('close-without-notify'), 'http/1.1', 'close-without-notify: its lie is an HTTP/1.1 body');
  t.not(await agreed('client-cert'), 'h2', 'client-cert: http/1.1 only (its certificate_required alert must be read)');
  t.equal(await agreed('alpn-lie'), 'h2', 'alpn-lie agrees h2 (then lies)');
});

t.test('good over h2: the chaos HTTP/2 session, x-chaos-tls-mode on the response, an /h2/* lie over TLS', async (t) => {
  const ok = await h2Get(nodeOrigin, '/status/200', { connect: connectTo('good') });
  t.equal(ok.status, 200);
  t.equal(ok.error, undefined);
  t.equal(ok.headers['x-chaos-tls-mode'], 'good', 'the TLS mode named on an HTTP/2 response');
  t.equal(ok.headers['x-chaos-category'], 'status');
  const rst = await h2Get(nodeOrigin, '/h2/rst?at=6', { connect: connectTo('good') });
  t.match(rst, { error: 'ERR_HTTP2_STREAM_ERROR', rstCode: 2 }, 'the RST_STREAM lie over TLS');
  t.equal(rst.headers['x-chaos-tls-mode'], 'good');
  const expired = await h2Get(nodeOrigin, '/status/418', { connect: connectTo('expired', false) });
  t.equal(expired.status, 418, 'a certificate mode past a client that ignores its defect: HTTP/2 too');
  t.equal(expired.headers['x-chaos-tls-mode'], 'expired');
});

t.test('alpn-lie: h2 agreed, HTTP/1.1 spoken: Node http2 fails the session', async (t) => {
  const lie = await h2Get(nodeOrigin, '/status/200', { connect: connectTo('alpn-lie'), ms: 5000 });
  t.equal(lie.status, undefined, 'no HTTP/2 response');
  t.ok(lie.error !== undefined, `the client says so (${lie.error})`);
});

t.test('curl and nghttp over TLS: HTTP/2 on good, the published root trusted', async (t) => {
  const resolve = ['--resolve', `${host('good')}:${port}:127.0.0.1`];
  const curl = await runProgram('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_version} %{http_code}', '--cacert', rootFile, ...resolve, `${tlsOrigin('good')}/status/200`]);
  t.equal(curl.out, '2 200', `curl: HTTP/2 200 (${curl.err.trim()})`);
  const curlRst = await runProgram('curl', ['-sS', '-o', '/dev/null', '--cacert', rootFile, ...resolve, `${tlsOrigin('good')}/h2/rst`]);
  t.equal(curlRst.code, 92, 'curl over TLS: the reset is its exit 92, as with prior knowledge');
  const curlLie = await runProgram('curl', ['-sS', '-o', '/dev/null', '--cacert', rootFile, '--resolve', `${host('alpn-lie')}:${port}:127.0.0.1`, `${tlsOrigin('alpn-lie')}/status/200`]);
  t.not(curlLie.code, 0, `curl on alpn-lie fails (exit ${curlLie.code})`);
  // nghttp has no --resolve and takes SNI from the URL's host: an address sends none, which is the no-sni mode (h2 too).
  const nghttp = await runProgram('nghttp', ['-nv', `https://127.0.0.1:${port}/status/200`]);
  t.match(nghttp.out, /negotiated protocol: h2/i, `nghttp: h2 negotiated (${nghttp.err.trim()})`);
  t.match(nghttp.out, /x-chaos-tls-mode: no-sni/);
});
