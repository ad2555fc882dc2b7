// The leaves of every mode, minted in memory from the kept intermediate (never
// written anywhere), with validity relative to `now` so that each host is its
// one defect on any date; re-minted daily by the listener. Weak settings live
// only in the weak modes' options: the good twin never sees them.
import type { SecureContextOptions } from 'node:tls';
import { TLS_MODES, tlsHostOf, type TlsMode } from './modes.js';
import type { Pki } from './pki.js';
import { ecKeys, issue, rsaKeys, type CertificateSpec, type Issued } from './x509.js';

const DAY_MS = 86_400_000;
/** The weak modes' context: OpenSSL 3 refuses to load (or to sign handshakes with) these at its default security level. */
const SECLEVEL_0 = 'DEFAULT@SECLEVEL=0';
/** The name wrong-host's certificate is for. */
export const WRONG_HOST_LABEL = 'elsewhere';
/** The default certificate's name (no SNI). */
export const NO_SNI_NAME = 'no-sni.invalid';

/** A leaf as a listener serves it. */
export interface ServedLeaf {
  /** Options of its SecureContext (key, chain, versions, ciphers). */
  readonly context: SecureContextOptions;
  readonly notAfter: Date;
  /** The leaf alone, PEM (tests and the self-check read its subject). */
  readonly leafPem: string;
  /** Its serial number, hexadecimal (an OCSP response names it). */
  readonly serialHex: string;
}

export interface ModeLeaf extends ServedLeaf {
  readonly mode: TlsMode;
}

export type ModeLeaves = ReadonlyMap<TlsMode, ModeLeaf>;

/** Days from `now`, and the validity of a leaf that is valid now: a day ago to 30 days on. */
function validity(now: Date): { at(days: number): Date; current: { notBefore: Date; notAfter: Date } } {
  const at = (days: number): Date => new Date(now.getTime() + days * DAY_MS);
  return { at, current: { notBefore: at(-1), notAfter: at(30) } };
}

/**
 * A leaf for a host of ours that is no mode (the control twins' name,
 * control.<TLS_BASE>): `good`'s kind, a chain to the published root through
 * the intermediate, valid now, modern settings. `unit` goes in its OU.
 */
export async function mintHostLeaf(pki: Pki, now: Date, host: string, unit: string): Promise<ServedLeaf> {
  const leaf = await issue({ subject: `CN=${host}, OU=${unit}, O=Chaos Endpoint Service test`, keys: await ecKeys(), dnsNames: [host], issuer: pki.intermediate, use: 'server', ...validity(now).current });
  return { context: { key: leaf.keyPem, cert: `${leaf.certPem.trim()}\n${pki.intermediate.certPem.trim()}\n`, minVersion: 'TLSv1.2' }, notAfter: leaf.cert.notAfter, leafPem: leaf.certPem, serialHex: leaf.cert.serialNumber };
}

/** Every mode's leaf and context, minted at `now`. */
export async function mintLeaves(pki: Pki, now: Date, hubUrl: string): Promise<ModeLeaves> {
  const keys = await ecKeys();
  const { at, current } = validity(now);
  const leafOf = (mode: TlsMode, overrides: Partial<CertificateSpec> = {}): Promise<Issued> => {
    const host = overrides.dnsNames?.[0] ?? tlsHostOf(mode, pki.base);
    return issue({ subject: `CN=${host}, OU=chaos:${mode}, O=Chaos Endpoint Service test`, keys, dnsNames: [host], issuer: pki.intermediate, use: 'server', ...current, ...overrides });
  };
  // The library's PEM has no final newline: each block gets its own line.
  const chain = (leaf: Issued, ...issuers: Issued[]): string => [leaf, ...issuers].map((c) => `${c.certPem.trim()}\n`).join('');
  const modern: SecureContextOptions = { minVersion: 'TLSv1.2' };
  // A second root, in memory only and never published: untrusted-root's chain ends at it.
  const strangerRoot = await issue({ subject: `CN=Chaos unpublished root, OU=chaos:untrusted-root, O=Chaos Endpoint Service test`, keys: await ecKeys(), caPathLength: 0, ...current });
  const leaves = new Map<TlsMode, ModeLeaf>();
  const add = (mode: TlsMode, leaf: Issued, certChain: string, options: SecureContextOptions = modern): void => {
    leaves.set(mode, { mode, context: { key: leaf.keyPem, cert: certChain, ...options }, notAfter: leaf.cert.notAfter, leafPem: leaf.certPem, serialHex: leaf.cert.serialNumber });
  };
  for (const mode of TLS_MODES) {
    switch (mode) {
      case 'expired': {
        const leaf = await leafOf(mode, { notBefore: at(-31), notAfter: at(-1) });
        add(mode, leaf, chain(leaf, pki.intermediate));
        break;
      }
      case 'not-yet-valid': {
        const leaf = await leafOf(mode, { notBefore: at(30), notAfter: at(60) });
        add(mode, leaf, chain(leaf, pki.intermediate));
        break;
      }
      case 'wrong-host': {
        const leaf = await leafOf(mode, { dnsNames: [`${WRONG_HOST_LABEL}.${pki.base}`] });
        add(mode, leaf, chain(leaf, pki.intermediate));
        break;
      }
      case 'self-signed': {
        const host = tlsHostOf(mode, pki.base);
        const leaf = await issue({ subject: `CN=${host}, OU=chaos:${mode}, O=Chaos Endpoint Service test`, keys, dnsNames: [host], use: 'server', ...current });
        add(mode, leaf, leaf.certPem);
        break;
      }
      case 'untrusted-root': {
        const leaf = await leafOf(mode, { issuer: strangerRoot });
        add(mode, leaf, chain(leaf, strangerRoot));
        break;
      }
      case 'incomplete-chain': {
        const leaf = await leafOf(mode);
        add(mode, leaf, leaf.certPem);
        break;
      }
      case 'sha1': {
        const leaf = await leafOf(mode, { hash: 'SHA-1' });
        add(mode, leaf, chain(leaf, pki.intermediate), { ...modern, ciphers: SECLEVEL_0 });
        break;
      }
      case 'rsa1024': {
        const leaf = await leafOf(mode, { keys: await rsaKeys(1024) });
        add(mode, leaf, chain(leaf, pki.intermediate), { ...modern, ciphers: SECLEVEL_0 });
        break;
      }
      case 'rsa512': {
        // Too small for the RSA-PSS signatures TLS 1.3 requires: TLS 1.2 only.
        const leaf = await leafOf(mode, { keys: await rsaKeys(512) });
        add(mode, leaf, chain(leaf, pki.intermediate), { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2', ciphers: SECLEVEL_0 });
        break;
      }
      case 'tls1-0':
      case 'tls1-1': {
        // OpenSSL 3 puts the SHA-1 handshake signatures of TLS 1.0/1.1 below security level 1 (openssl/openssl#15859).
        const version = mode === 'tls1-0' ? 'TLSv1' : 'TLSv1.1';
        const leaf = await leafOf(mode);
        add(mode, leaf, chain(leaf, pki.intermediate), { minVersion: version, maxVersion: version, ciphers: SECLEVEL_0 });
        break;
      }
      case 'no-sni': {
        const leaf = await leafOf(mode, { dnsNames: [NO_SNI_NAME] });
        add(mode, leaf, chain(leaf, pki.intermediate));
        break;
      }
      case 'client-cert': {
        const leaf = await leafOf(mode);
        // The CA list a client certificate is checked against (and the one the CertificateRequest names).
        add(mode, leaf, chain(leaf, pki.intermediate), { ...modern, ca: pki.clientCa.certPem });
        break;
      }
      case 'revoked': {
        const leaf = await leafOf(mode, { serial: pki.revokedSerial, crlUrl: `${hubUrl}/tls/crl.pem` });
        add(mode, leaf, chain(leaf, pki.intermediate));
        break;
      }
      case 'good':
      case 'alpn-lie':
      case 'close-without-notify': {
        const leaf = await leafOf(mode);
        add(mode, leaf, chain(leaf, pki.intermediate));
        break;
      }
    }
  }
  return leaves;
}
