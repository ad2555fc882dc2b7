// TLS chaos certificates (issue 26) with a faked clock: whatever the date,
// `good` is valid then and `expired` expired, each leaf chains to the kept
// intermediate and root, and a re-mint moves every validity with the clock.
// Also the TLS settings of loadConfig and chaos_tls_cert_expiry_seconds.
import { verify, X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig } from '../../shared/config/config.js';
import { Metrics } from '../../shared/runtime/metrics.js';
import { HostLeafMaterial, TlsMaterial } from '../../shared/tls/material.js';
import { CONTROL_TLS_LABEL, controlTlsHost, TLS_MODES, tlsModeOfName } from '../../shared/tls/modes.js';
import { readOcspResponse } from '../../shared/tls/ocsp.js';
import { loadOrCreatePki } from '../../shared/tls/pki.js';

const DAY = 86_400_000;

function freshDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-tls-unit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('TLS settings through loadConfig', async (t) => {
  const c = loadConfig({});
  t.same(c.tls, { dir: undefined, port: 8444, publicPort: 8444, frontPort: 8443, handshakesPerIp: 100, base: 'tls.localhost', controlPort: undefined });
  t.same(loadConfig({ CHAOS_TLS_PORT: '9443', TLS_BASE: 'TLS.Example.test', TLS_DIR: '/x', FRONT_TLS_PORT: '9444', TLS_HANDSHAKES_PER_IP: '0', CONTROL_TLS_PORT: '9445' }).tls, {
    dir: '/x', port: 9443, publicPort: 9443, frontPort: 9444, handshakesPerIp: 0, base: 'tls.example.test', controlPort: 9445,
  });
  t.equal(loadConfig({ CONTROL_TLS_PORT: '0' }).tls.controlPort, 0, 'CONTROL_TLS_PORT=0: a free port');
  t.equal(loadConfig({ CONTROL_TLS_PORT: '' }).tls.controlPort, undefined, 'empty: off, as unset');
  t.throws(() => loadConfig({ CONTROL_TLS_PORT: '70000' }), ConfigError);
  t.throws(() => loadConfig({ CONTROL_TLS_PORT: 'on' }), ConfigError);
  t.equal(loadConfig({ PUBLIC_TLS_PORT: '8443' }).tls.publicPort, 8443);
  for (const bad of ['localhost', 'a..b', '-x.test', 'x.test.', 'sp ace.test']) t.throws(() => loadConfig({ TLS_BASE: bad }), ConfigError, `TLS_BASE=${bad}`);
  t.throws(() => loadConfig({ CHAOS_TLS_PORT: '70000' }), ConfigError);
  t.throws(() => loadConfig({ FRONT_TLS_PORT: '70000' }), ConfigError);
  t.throws(() => loadConfig({ TLS_HANDSHAKES_PER_IP: 'many' }), ConfigError);
});

t.test('a server name picks its mode', async (t) => {
  t.equal(tlsModeOfName('Expired.TLS.localhost', 'tls.localhost'), 'expired');
  t.equal(tlsModeOfName('nope.tls.localhost', 'tls.localhost'), undefined);
  t.equal(tlsModeOfName('good.other.test', 'tls.localhost'), undefined);
  t.equal(tlsModeOfName('x.good.tls.localhost', 'tls.localhost'), undefined);
});

for (const iso of ['2026-11-27T12:00:00Z', '2031-02-28T23:59:00Z', '2045-07-04T06:30:00Z']) {
  t.test(`on ${iso}: good is valid and expired expired, each exactly its defect`, async (t) => {
    let now = new Date(iso);
    const config = loadConfig({ TLS_DIR: freshDir(t) });
    const material = await TlsMaterial.load(config, () => now);
    const root = new X509Certificate(material.pki.root.certPem);
    const intermediate = new X509Certificate(material.pki.intermediate.certPem);
    const leaf = (mode: (typeof TLS_MODES)[number]): X509Certificate => new X509Certificate(material.leaves.get(mode)?.leafPem ?? '');
    const validAt = (cert: X509Certificate, at: Date): boolean => new Date(cert.validFrom) <= at && at <= new Date(cert.validTo);
    t.ok(validAt(root, now) && validAt(intermediate, now), 'root and intermediate valid now');
    t.ok(intermediate.verify(root.publicKey), 'the intermediate is signed by the root');
    for (const mode of TLS_MODES) {
      const cert = leaf(mode);
      t.match(cert.subject, `OU=chaos:${mode}`, `${mode}: OU`);
      const signer = mode === 'self-signed' ? cert : mode === 'untrusted-root' ? undefined : intermediate;
      if (signer) t.ok(cert.verify(signer.publicKey), `${mode}: signed by ${mode === 'self-signed' ? 'itself' : 'the intermediate'}`);
      if (mode === 'expired') t.ok(new Date(cert.validTo) < now, 'expired: ended before now');
      else if (mode === 'not-yet-valid') t.ok(new Date(cert.validFrom) > now, 'not-yet-valid: starts after now');
      else t.ok(validAt(cert, now), `${mode}: valid now`);
    }
    t.ok(!leaf('untrusted-root').verify(intermediate.publicKey), 'untrusted-root is not signed by the published chain');
    t.equal(leaf('revoked').serialNumber.toLowerCase(), material.pki.revokedSerial, 'revoked carries the serial the CRL lists');
    t.match(leaf('wrong-host').subjectAltName ?? '', 'DNS:elsewhere.tls.localhost');
    const ocspNow = (): ReturnType<typeof readOcspResponse> => readOcspResponse(material.ocspResponse('revoked') ?? Buffer.alloc(0));
    const ocsp = ocspNow();
    t.equal(ocsp.status, 'revoked', 'revoked: its OCSP response says revoked');
    t.equal(ocsp.serialHex, material.pki.revokedSerial, 'about the revoked leaf');
    t.ok(Math.abs(ocsp.thisUpdate.getTime() - now.getTime()) < 1000, `minted now (thisUpdate ${ocsp.thisUpdate.toISOString()})`);
    t.ok((ocsp.nextUpdate?.getTime() ?? 0) > now.getTime() + 6 * DAY, 'fresh for longer than a day: re-minted before it is stale');
    t.ok(verify('sha256', ocsp.tbsDer, intermediate.publicKey, ocsp.signature), 'signed by the intermediate');
    t.ok(material.stapler('revoked'), 'revoked has a stapler');
    t.equal(material.stapler('good') ?? material.ocspResponse('good'), undefined, 'good staples nothing');
    const expiry = material.expirySeconds();
    t.ok((expiry.get('good') ?? 0) > 20 * 86_400, `good expires in ${expiry.get('good')} s`);
    t.ok((expiry.get('expired') ?? 0) < 0, `expired: ${expiry.get('expired')} s`);
    // Twenty days on, re-minted: still each its defect.
    now = new Date(now.getTime() + 20 * DAY);
    await material.remint();
    t.ok(validAt(leaf('good'), now), 'good valid after a re-mint twenty days on');
    t.ok(new Date(leaf('expired').validTo) < now, 'expired still expired');
    t.ok(new Date(leaf('not-yet-valid').validFrom) > now, 'not-yet-valid still in the future');
    t.ok(Math.abs(ocspNow().thisUpdate.getTime() - now.getTime()) < 1000, 'the OCSP response is re-minted with the leaves');
    t.ok((ocspNow().nextUpdate?.getTime() ?? 0) > now.getTime(), 'and fresh then');
  });
}

t.test("control's TLS leaf (control.<TLS_BASE>): from the same root, valid on any date, re-minted with the clock", async (t) => {
  t.notOk((TLS_MODES as readonly string[]).includes(CONTROL_TLS_LABEL), 'control is no mode: the chaos listener never serves its name as one');
  t.equal(tlsModeOfName(controlTlsHost('tls.localhost'), 'tls.localhost'), undefined);
  let now = new Date('2038-03-01T00:00:00Z');
  const config = loadConfig({ TLS_DIR: freshDir(t) });
  const modes = await TlsMaterial.load(config, () => now);
  const material = await HostLeafMaterial.load(config, controlTlsHost(config.tls.base), CONTROL_TLS_LABEL, () => now);
  t.equal(material.pki.root.certPem, modes.pki.root.certPem, 'the one published root of TLS_DIR');
  const intermediate = new X509Certificate(material.pki.intermediate.certPem);
  const leaf = (): X509Certificate => new X509Certificate(material.leaf.leafPem);
  t.match(leaf().subject, 'CN=control.tls.localhost');
  t.match(leaf().subject, 'OU=control');
  t.equal(leaf().subjectAltName, 'DNS:control.tls.localhost', 'its one name, under the root\'s name constraint');
  t.ok(leaf().verify(intermediate.publicKey), 'signed by the intermediate');
  t.ok(new Date(leaf().validFrom) <= now && now <= new Date(leaf().validTo), 'valid now');
  t.match(String(material.leaf.context.cert), /-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----/, 'served with its intermediate');
  t.ok(material.expirySeconds() > 20 * 86_400, `expires in ${material.expirySeconds()} s`);
  const first = material.context;
  now = new Date(now.getTime() + 40 * DAY);
  t.ok(material.expirySeconds() < 0, 'without a re-mint, forty days on it would have expired');
  await material.remint();
  t.ok(new Date(leaf().validFrom) <= now && now <= new Date(leaf().validTo), 'valid again after the re-mint forty days on');
  t.not(material.context, first, 'the next handshake gets the new context');
  t.ok(material.expirySeconds() > 20 * 86_400, 'and the expiry reads it');
});

t.test('chaos_tls_cert_expiry_seconds reads each mode at scrape time', async (t) => {
  const metrics = new Metrics('chaos', () => new Map(), {
    connections: () => 0,
    heldResponses: () => 0,
    tlsCertExpiry: () => new Map([['good', 2_592_000], ['expired', -86_400]]),
  });
  t.teardown(() => metrics.close());
  const text = await metrics.registry.metrics();
  t.match(text, /\nchaos_tls_cert_expiry_seconds\{mode="good"\} 2592000\n/);
  t.match(text, /\nchaos_tls_cert_expiry_seconds\{mode="expired"\} -86400\n/);
});

t.test('a root made for another TLS_BASE is refused with a clear message', async (t) => {
  const dir = freshDir(t);
  await TlsMaterial.load(loadConfig({ TLS_DIR: dir }));
  await t.rejects(TlsMaterial.load(loadConfig({ TLS_DIR: dir, TLS_BASE: 'tls.example.test' })), /made for another TLS_BASE/);
});

t.test('replicas starting together in one TLS_DIR end up with one root (the full stack shares it)', async (t) => {
  const dir = freshDir(t);
  const starts = await Promise.all(Array.from({ length: 6 }, () => loadOrCreatePki(dir, 'tls.localhost')));
  const roots = new Set(starts.map((pki) => pki.root.certPem.trim()));
  t.equal(roots.size, 1, 'six concurrent first starts: one root');
  t.equal(new Set(starts.map((pki) => pki.revokedSerial)).size, 1, 'and one revoked serial, so every replica and the hub CRL agree');
  t.same(readdirSync(dir), ['ca-v1'], 'no staging folder is left behind');
  t.equal(readFileSync(join(dir, 'ca-v1', 'root.pem'), 'utf8').trim(), [...roots][0], 'the root kept is the one every start uses');
  t.equal(statSync(join(dir, 'ca-v1', 'root-key.pem')).mode & 0o777, 0o600, 'keys stay 0600');
});
