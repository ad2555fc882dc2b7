// The TLS chaos modes (issue 26): one host name each, `<mode>.<TLS_BASE>`,
// whose certificate or handshake carries exactly one defect. `good` is the
// twin of all of them. What a correct client does, and what the usual clients
// say, is data here: /tls/hosts.json publishes it and the TLS tests hold curl,
// openssl, Node, Python and Chromium to it on real sockets.

export const TLS_MODES = [
  'good', 'expired', 'not-yet-valid', 'wrong-host', 'self-signed', 'untrusted-root', 'incomplete-chain',
  'sha1', 'rsa1024', 'rsa512', 'tls1-0', 'tls1-1', 'no-sni', 'client-cert', 'revoked', 'alpn-lie', 'close-without-notify',
] as const;
export type TlsMode = (typeof TLS_MODES)[number];

/** What each client reports for a mode, trusting the published root (absent: it connects). */
export interface ClientWords {
  /** curl's exit code and a phrase of its message. */
  readonly curl?: string;
  /** openssl s_client's verify result line (`Verify return code: …`) or handshake error. */
  readonly openssl?: string;
  /** Node tls.connect's error code. */
  readonly node?: string;
  /** Python ssl's error text. */
  readonly python?: string;
  /** Chromium's net error. */
  readonly chromium?: string;
}

export interface TlsModeInfo {
  readonly mode: TlsMode;
  readonly defect: string;
  /** What a correct client does. */
  readonly expect: string;
  readonly clients: ClientWords;
}

const REFUSE = 'refuse the connection';

export const TLS_MODE_INFO: Readonly<Record<TlsMode, TlsModeInfo>> = {
  good: {
    mode: 'good',
    defect: 'none: the twin. Full chain from the published root, TLS 1.2-1.3, modern ciphers, valid now (re-minted daily)',
    expect: 'connect',
    clients: {},
  },
  expired: {
    mode: 'expired', defect: 'the certificate expired yesterday (re-minted daily: on any date)', expect: REFUSE,
    clients: { curl: '(60) certificate has expired', openssl: '10 (certificate has expired)', node: 'CERT_HAS_EXPIRED', python: 'certificate has expired', chromium: 'net::ERR_CERT_DATE_INVALID' },
  },
  'not-yet-valid': {
    mode: 'not-yet-valid', defect: 'the certificate becomes valid in 30 days (re-minted daily)', expect: REFUSE,
    clients: { curl: '(60) certificate is not yet valid', openssl: '9 (certificate is not yet valid)', node: 'CERT_NOT_YET_VALID', python: 'certificate is not yet valid', chromium: 'net::ERR_CERT_DATE_INVALID' },
  },
  'wrong-host': {
    mode: 'wrong-host', defect: 'a valid certificate for another name (elsewhere.<TLS_BASE>)', expect: REFUSE,
    clients: { curl: '(60) no alternative certificate subject name matches target host name', openssl: '62 (hostname mismatch)', node: 'ERR_TLS_CERT_ALTNAME_INVALID', python: "Hostname mismatch, certificate is not valid for", chromium: 'net::ERR_CERT_COMMON_NAME_INVALID' },
  },
  'self-signed': {
    mode: 'self-signed', defect: 'a leaf signed by its own key', expect: REFUSE,
    clients: { curl: '(60) self-signed certificate', openssl: '18 (self-signed certificate)', node: 'DEPTH_ZERO_SELF_SIGNED_CERT', python: 'self-signed certificate', chromium: 'net::ERR_CERT_AUTHORITY_INVALID' },
  },
  'untrusted-root': {
    mode: 'untrusted-root', defect: 'a chain to a second root that is never published (sent in the chain)', expect: REFUSE,
    clients: { curl: '(60) self-signed certificate in certificate chain', openssl: '19 (self-signed certificate in certificate chain)', node: 'SELF_SIGNED_CERT_IN_CHAIN', python: 'self-signed certificate in certificate chain', chromium: 'net::ERR_CERT_AUTHORITY_INVALID' },
  },
  'incomplete-chain': {
    mode: 'incomplete-chain', defect: 'the leaf without its intermediate, and no AIA URL to fetch it from', expect: REFUSE,
    clients: { curl: '(60) unable to get local issuer certificate', openssl: '21 (unable to verify the first certificate)', node: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', python: 'unable to get local issuer certificate', chromium: 'net::ERR_CERT_AUTHORITY_INVALID' },
  },
  sha1: {
    mode: 'sha1', defect: 'the leaf is signed with ECDSA-SHA1', expect: REFUSE,
    clients: { curl: '(60) CA signature digest algorithm too weak', openssl: '68 (CA signature digest algorithm too weak)', node: 'UNSPECIFIED', python: 'CA signature digest algorithm too weak', chromium: 'net::ERR_CERT_INVALID' },
  },
  rsa1024: {
    // Chromium accepts a 1024-bit RSA key (its floor): it connects.
    mode: 'rsa1024', defect: 'a 1024-bit RSA leaf key', expect: REFUSE,
    clients: { curl: '(60) EE certificate key too weak', openssl: '66 (EE certificate key too weak)', node: 'UNSPECIFIED', python: 'EE certificate key too weak' },
  },
  rsa512: {
    mode: 'rsa512', defect: 'a 512-bit RSA leaf key (TLS 1.2 only: too small for RSA-PSS)', expect: REFUSE,
    clients: { curl: '(60) EE certificate key too weak', openssl: '66 (EE certificate key too weak)', node: 'UNSPECIFIED', python: 'EE certificate key too weak', chromium: 'net::ERR_CERT_WEAK_KEY' },
  },
  'tls1-0': {
    mode: 'tls1-0', defect: 'only TLS 1.0 is offered', expect: 'refuse the handshake (TLS 1.0 is deprecated, RFC 8996)',
    clients: { curl: '(35) legacy sigalg disallowed or unsupported', openssl: 'legacy sigalg disallowed or unsupported', node: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', python: 'TLSV1_ALERT_PROTOCOL_VERSION', chromium: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH' },
  },
  'tls1-1': {
    mode: 'tls1-1', defect: 'only TLS 1.1 is offered', expect: 'refuse the handshake (TLS 1.1 is deprecated, RFC 8996)',
    clients: { curl: '(35) legacy sigalg disallowed or unsupported', openssl: 'legacy sigalg disallowed or unsupported', node: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', python: 'TLSV1_ALERT_PROTOCOL_VERSION', chromium: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH' },
  },
  'no-sni': {
    mode: 'no-sni', defect: 'a hello without SNI (and this name) gets the default certificate, for no-sni.invalid: outside the root\'s name constraint', expect: REFUSE,
    clients: { curl: '(60) permitted subtree violation', openssl: '47 (permitted subtree violation)', node: 'UNSPECIFIED', python: 'Hostname mismatch', chromium: 'net::ERR_CERT_INVALID' },
  },
  'client-cert': {
    mode: 'client-cert', defect: 'the server requires a client certificate from the published test client CA (/tls/client.pem is one)', expect: 'present the published client identity; without one the handshake fails',
    clients: { curl: '(56) alert certificate required', node: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', python: 'TLSV13_ALERT_CERTIFICATE_REQUIRED', chromium: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT' },
  },
  revoked: {
    mode: 'revoked', defect: 'valid, but listed in the CRL at /tls/crl.pem, and it staples an OCSP response saying revoked (signed by the intermediate)', expect: 'refuse when checking revocation (the CRL, or the stapled OCSP response): Chromium does by default; curl, openssl, Node and Python check none by default',
    clients: {
      // Under their revocation options only: by default each connects (tests/integration/tls.test.ts).
      curl: '(91) SSL certificate revocation reason: keyCompromise (1), with --cert-status',
      openssl: '23 (certificate revoked) with -CRL crl.pem -crl_check; -status prints Cert Status: revoked',
      python: 'certificate revoked (with VERIFY_CRL_CHECK_LEAF and the CRL loaded)',
      // Chromium asks for a staple and acts on it, by default.
      chromium: 'net::ERR_CERT_REVOKED',
    },
  },
  'alpn-lie': {
    mode: 'alpn-lie', defect: 'selects h2 in ALPN when offered, then speaks HTTP/1.1', expect: 'fail the connection as a protocol error',
    clients: { curl: '(52) Empty reply from server', chromium: 'net::ERR_HTTP2_PROTOCOL_ERROR' },
  },
  'close-without-notify': {
    mode: 'close-without-notify', defect: 'every response ends with a TCP close and no TLS close_notify (a truncation attack\'s signature)', expect: 'treat a close-delimited body as truncated',
    clients: { python: 'EOF occurred in violation of protocol (with suppress_ragged_eofs=False)', openssl: 'unexpected eof while reading' },
  },
};

/** The first label of the control twins' TLS name (docs/http2.md): `control.<TLS_BASE>`, no mode's. */
export const CONTROL_TLS_LABEL = 'control';

/** The control twins' TLS name: under TLS_BASE, so the published root's name constraint covers it. */
export function controlTlsHost(base: string): string {
  return `${CONTROL_TLS_LABEL}.${base}`;
}

/** The host name of a mode. */
export function tlsHostOf(mode: TlsMode, base: string): string {
  return `${mode}.${base}`;
}

/** The mode a server name asks for (case-insensitive); undefined for a name outside the base. */
export function tlsModeOfName(servername: string, base: string): TlsMode | undefined {
  const name = servername.toLowerCase();
  const suffix = `.${base}`;
  if (!name.endsWith(suffix)) return undefined;
  const label = name.slice(0, -suffix.length);
  return (TLS_MODES as readonly string[]).includes(label) ? (label as TlsMode) : undefined;
}
