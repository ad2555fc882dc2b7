// What a mode changes in the handshake itself, beyond its SecureContext; the
// listener and the start-up self-check share it, so a mode the self-check
// passes is served exactly as checked.
import { duplexPair } from 'node:stream';
import tls, { type SecureContext } from 'node:tls';
import type { ModeLeaf, ModeLeaves } from './leaves.js';
import type { TlsMode } from './modes.js';

/**
 * Modes that never agree h2: the TLS 1.0 and 1.1 ones (RFC 9113 §9.2 requires
 * TLS 1.2 for HTTP/2: h2 there would be a second lie), close-without-notify
 * (its lie is a close-delimited HTTP/1.1 body) and client-cert (over h2 a
 * client writes its preface before it reads the certificate_required alert,
 * and reports a socket error instead: curl's "(55) getpeername() failed",
 * measured, in place of "(56) alert certificate required").
 */
const HTTP1_ONLY_MODES: ReadonlySet<TlsMode> = new Set(['tls1-0', 'tls1-1', 'close-without-notify', 'client-cert']);

/**
 * The protocol ALPN agrees on: h2 when offered (the chaos HTTP/2 session
 * serves it; alpn-lie picks it too, then speaks HTTP/1.1), except for the
 * modes above; else http/1.1, or none.
 */
export function alpnChoice(mode: TlsMode | undefined, offered: readonly string[]): string | undefined {
  if (offered.includes('h2') && (mode === undefined || !HTTP1_ONLY_MODES.has(mode))) return 'h2';
  return offered.includes('http/1.1') ? 'http/1.1' : undefined;
}

/**
 * The options of a mode's server-side TLS socket: its context as the first
 * and only one (its versions and security level then hold), ALPN, and
 * client-cert's required certificate. The listener, which reads the server
 * name before it makes the socket, and the self-check both use them.
 */
export function modeSocketOptions(mode: TlsMode, secureContext: SecureContext, stapler?: tls.Server): tls.TLSSocketOptions {
  const clientCert = mode === 'client-cert';
  return {
    isServer: true,
    secureContext,
    requestCert: clientCert,
    rejectUnauthorized: clientCert,
    ALPNCallback: ({ protocols }: { protocols: string[] }) => alpnChoice(mode, protocols),
    ...staplingOption(stapler),
  } as tls.TLSSocketOptions;
}

/**
 * A mode that staples an OCSP response (docs/tls.md) gets a tls.Server that
 * never listens as its sockets' `server`: Node asks only a tls.Server for a
 * response ('OCSPRequest'), and only when the client asked for one. The other
 * modes' sockets have no server, so their handshakes skip that step entirely.
 */
function staplingOption(stapler: tls.Server | undefined): Pick<tls.TLSSocketOptions, 'server'> {
  return stapler === undefined ? {} : { server: stapler };
}

/** The never-listening server that staples `response()` (the current one: it changes with each re-mint). */
export function ocspStapler(response: () => Buffer | undefined): tls.Server {
  const stapler = new tls.Server();
  stapler.on('OCSPRequest', (_certificate: Buffer, _issuer: Buffer, done: (error: Error | null, response?: Buffer) => void) => done(null, response()));
  return stapler;
}

/** The protocol version each mode must negotiate with a client that allows every version. */
function expectedVersion(mode: TlsMode): string | undefined {
  if (mode === 'tls1-0') return 'TLSv1';
  if (mode === 'tls1-1') return 'TLSv1.1';
  if (mode === 'rsa512') return 'TLSv1.2';
  return undefined;
}

const CHECK_MS = 5_000;
/** The base the self-check's names use (any: only the label picks the mode). */
const CHECK_BASE = 'check.invalid';

/**
 * Serves each mode once in memory (a stream pair, no port) to a client that
 * allows everything, and returns the modes this runtime's OpenSSL cannot
 * serve as intended: a context that does not load, a handshake that fails, a
 * version other than the mode's, or a certificate that is not the mode's.
 */
export async function unavailableModes(leaves: ModeLeaves, contexts: ReadonlyMap<TlsMode, SecureContext>, clientIdentityPem: string): Promise<ReadonlyMap<TlsMode, string>> {
  const unavailable = new Map<TlsMode, string>();
  for (const [mode, leaf] of leaves) {
    const context = contexts.get(mode);
    const problem = context === undefined ? 'its certificate and settings do not load in this runtime' : await checkMode(leaf, context, clientIdentityPem);
    if (problem !== undefined) unavailable.set(mode, problem);
  }
  return unavailable;
}

/** One mode through the listener's own socket options, over an in-memory stream pair. */
function checkMode(leaf: ModeLeaf, context: SecureContext, clientIdentityPem: string): Promise<string | undefined> {
  const { mode } = leaf;
  return new Promise((resolve) => {
    const [serverSide, clientSide] = duplexPair();
    const server = new tls.TLSSocket(serverSide, modeSocketOptions(mode, context));
    const client = tls.connect({
      socket: clientSide, ...(mode === 'no-sni' ? {} : { servername: `${mode}.${CHECK_BASE}` }), rejectUnauthorized: false, minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0',
      ...(mode === 'client-cert' ? { cert: clientIdentityPem, key: clientIdentityPem } : {}),
    });
    const finish = (problem: string | undefined): void => {
      clearTimeout(timer);
      client.destroy();
      server.destroy();
      resolve(problem);
    };
    const timer = setTimeout(() => finish('the handshake did not finish'), CHECK_MS);
    server.on('error', () => undefined);
    client.on('error', (error: Error) => finish(`the handshake failed: ${error.message.split('\n')[0] ?? ''}`));
    client.on('secureConnect', () => {
      const version = client.getProtocol();
      const wanted = expectedVersion(mode);
      const ou: unknown = client.getPeerCertificate().subject?.OU;
      if (wanted !== undefined && version !== wanted) finish(`negotiated ${String(version)}, not ${wanted}`);
      else if (ou !== `chaos:${mode}`) finish('the certificate served is not the mode\'s');
      else finish(undefined);
    });
  });
}

/** Each mode's SecureContext; a mode whose options do not load is left out (the self-check reports it). */
export function secureContexts(leaves: ModeLeaves): Map<TlsMode, SecureContext> {
  const contexts = new Map<TlsMode, SecureContext>();
  for (const [mode, leaf] of leaves) {
    try {
      contexts.set(mode, tls.createSecureContext(leaf.context));
    } catch {
      // Left out: unavailableModes names it.
    }
  }
  return contexts;
}
