// Certificates and CRLs through @peculiar/x509 on Node's WebCrypto (a kept
// library; node-forge keeps shipping signature CVEs). @peculiar/x509 throws at
// import without a Reflect metadata polyfill, so reflect-metadata comes first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { generateKeyPairSync, webcrypto, type KeyObject } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;

// Node's WebCrypto is the DOM Crypto the library types against (this project compiles without the DOM lib).
x509.cryptoProvider.set(webcrypto as never);

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
/** How a certificate is signed: every CA key is ECDSA P-256; SHA-1 only for the sha1 mode's leaf. */
export type SignatureHash = 'SHA-256' | 'SHA-1';

export interface KeyPair {
  readonly publicKey: CryptoKey;
  readonly privateKey: CryptoKey;
}

/** A certificate with the key it certifies, PEM both. */
export interface Issued {
  readonly cert: x509.X509Certificate;
  readonly certPem: string;
  readonly keys: KeyPair;
  readonly keyPem: string;
}

export async function ecKeys(): Promise<KeyPair> {
  return (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as KeyPair;
}

/** An RSA key of `bits` (1024, 512 for the weak modes): node:crypto makes it, WebCrypto imports it (its own generator refuses small sizes). */
export async function rsaKeys(bits: number): Promise<KeyPair> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  return {
    publicKey: (await webcrypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), algorithm, true, ['verify'])),
    privateKey: (await webcrypto.subtle.importKey('pkcs8', pkcs8Der(privateKey), algorithm, true, ['sign'])),
  };
}

function pkcs8Der(key: KeyObject): Buffer {
  return key.export({ type: 'pkcs8', format: 'der' });
}

export async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** An EC key pair back from its PKCS#8 PEM (the public half is derived from the private key). */
export async function ecKeysFromPem(pem: string): Promise<KeyPair> {
  const der = x509.PemConverter.decode(pem)[0];
  if (der === undefined) throw new Error('no PEM block in a key file');
  const privateKey = (await webcrypto.subtle.importKey('pkcs8', der, EC_P256, true, ['sign']));
  const jwk = await webcrypto.subtle.exportKey('jwk', privateKey);
  const { d: _d, ...publicJwk } = jwk;
  const publicKey = (await webcrypto.subtle.importKey('jwk', { ...publicJwk, key_ops: ['verify'] }, EC_P256, true, ['verify']));
  return { publicKey, privateKey };
}

export function parseCert(pem: string): x509.X509Certificate {
  return new x509.X509Certificate(pem);
}

/** DER of nameConstraints with one permitted dNSName subtree (RFC 5280 4.2.1.10); the library has no builder for it. */
function nameConstraintsDer(dnsName: string): Buffer {
  const tlv = (tag: number, body: Buffer): Buffer => {
    const n = body.length;
    const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
    return Buffer.concat([Buffer.from([tag]), length, body]);
  };
  const generalName = tlv(0x82, Buffer.from(dnsName, 'ascii')); // [2] dNSName, IA5String, implicit
  const subtree = tlv(0x30, generalName); // GeneralSubtree: base only (minimum 0, maximum absent)
  return tlv(0x30, tlv(0xa0, subtree)); // NameConstraints { permittedSubtrees [0] }
}

const OID_NAME_CONSTRAINTS = '2.5.29.30';

export interface CertificateSpec {
  /** A distinguished name, such as `CN=good.tls.localhost, OU=chaos:good, O=…`. */
  readonly subject: string;
  readonly keys: KeyPair;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** The issuer; absent: self-signed. */
  readonly issuer?: Issued;
  /** A CA: path length; absent: an end-entity certificate. */
  readonly caPathLength?: number;
  /** A CA whose names are limited to this DNS subtree (the published test root). */
  readonly permittedDns?: string;
  /** DNS names (subjectAltName) of a leaf. */
  readonly dnsNames?: readonly string[];
  /** Extended key use of a leaf. */
  readonly use?: 'server' | 'client';
  /** A CRL distribution point of a leaf. */
  readonly crlUrl?: string;
  readonly hash?: SignatureHash;
  /** Hexadecimal serial; absent: random. */
  readonly serial?: string;
}

/** Signs one certificate as `spec` says. */
export async function issue(spec: CertificateSpec): Promise<Issued> {
  const { keys } = spec;
  const signer = spec.issuer?.keys ?? keys;
  const extensions: x509.Extension[] = [];
  if (spec.caPathLength !== undefined) {
    extensions.push(new x509.BasicConstraintsExtension(true, spec.caPathLength, true));
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true));
  } else {
    extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true));
    extensions.push(new x509.ExtendedKeyUsageExtension([spec.use === 'client' ? x509.ExtendedKeyUsage.clientAuth : x509.ExtendedKeyUsage.serverAuth]));
  }
  if (spec.permittedDns !== undefined) extensions.push(new x509.Extension(OID_NAME_CONSTRAINTS, true, nameConstraintsDer(spec.permittedDns)));
  if (spec.dnsNames !== undefined) extensions.push(new x509.SubjectAlternativeNameExtension(spec.dnsNames.map((value) => ({ type: 'dns' as const, value }))));
  if (spec.crlUrl !== undefined) extensions.push(new x509.CRLDistributionPointsExtension([spec.crlUrl]));
  extensions.push(await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never));
  if (spec.issuer) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(spec.issuer.cert as never));
  const signingAlgorithm = { name: signer.privateKey.algorithm.name, hash: spec.hash ?? 'SHA-256' };
  const common = { notBefore: spec.notBefore, notAfter: spec.notAfter, extensions, signingAlgorithm, ...(spec.serial ? { serialNumber: spec.serial } : {}) };
  const cert = spec.issuer
    ? await x509.X509CertificateGenerator.create({ ...common, subject: spec.subject, issuer: spec.issuer.cert.subject, publicKey: keys.publicKey, signingKey: signer.privateKey })
    : await x509.X509CertificateGenerator.createSelfSigned({ ...common, name: spec.subject, keys: keys as never });
  return { cert, certPem: cert.toString('pem'), keys, keyPem: await keyPem(keys.privateKey) };
}

/** A CRL of `issuer` listing `serials` as key-compromised, in the `X509 CRL` PEM that OpenSSL reads. */
export async function crlPem(issuer: Issued, serials: readonly string[], thisUpdate: Date, nextUpdate: Date): Promise<string> {
  const crl = await x509.X509CrlGenerator.create({
    issuer: issuer.cert.subject,
    thisUpdate,
    nextUpdate,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    entries: serials.map((serialNumber) => ({ serialNumber, revocationDate: thisUpdate, reason: x509.X509CrlReason.keyCompromise })),
  });
  return x509.PemConverter.encode(crl.rawData, 'X509 CRL');
}
