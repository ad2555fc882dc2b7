// What a mode changes in the handshake itself, beyond its SecureContext; the
// listener and the start-up self-check share it, so a mode the self-check
// passes is served exactly as checked.
import { duplexPair } from 'node:stream';
import tls, { type SecureContext, type TLSSocket } from 'node:tls';
import type { ModeLeaf, ModeLeaves } from './leaves.js';
import { tlsModeOfName, type TlsMode } from './modes.js';

interface VerifyHandle {
  setVerifyMode?: (requestCert: boolean, rejectUnauthorized: boolean) => void;
}

/**
 * Makes this handshake ask for, and require, a client certificate. Node takes
 * requestCert per server, not per SNI context, so client-cert sets OpenSSL's
 * verify mode on its own socket's handle while the hello is processed (node's
 * internal TLSWrap.setVerifyMode). False when the runtime has no such handle
 * method: the self-check then lists client-cert as unavailable.
 */
export function requireClientCertificate(socket: TLSSocket): boolean {
  const handle = (socket as unknown as { _handle?: VerifyHandle | null })._handle;
  if (typeof handle?.setVerifyMode !== 'function') return false;
  handle.setVerifyMode(true, true);
  return true;
}

/** The protocol ALPN agrees on: alpn-lie picks h2 when offered (then speaks HTTP/1.1); the rest http/1.1, or none. */
export function alpnChoice(mode: TlsMode | undefined, offered: readonly string[]): string | undefined {
  if (mode === 'alpn-lie' && offered.includes('h2')) return 'h2';
  return offered.includes('http/1.1') ? 'http/1.1' : undefined;
}

/**
 * The server options that pick a mode by server name: the mode's context
 * (an unavailable mode fails its handshake: never a wrong lie), client-cert's
 * certificate request, and ALPN. The listener and the self-check both use it.
 */
export function modeSelection(base: string, contextOf: (mode: TlsMode) => SecureContext | undefined): Pick<tls.TlsOptions, 'SNICallback' | 'ALPNCallback'> {
  const modeOf = (servername: string | false | null | undefined): TlsMode => (servername ? tlsModeOfName(servername, base) : undefined) ?? 'no-sni';
  return {
    // Called on the socket being handshaken (node's loadSNI): client-cert asks for a certificate on that socket only.
    SNICallback(this: TLSSocket, servername, done) {
      const mode = modeOf(servername);
      const context = contextOf(mode);
      if (context === undefined) return done(new Error(`TLS mode ${mode} is unavailable`), undefined);
      if (mode === 'client-cert' && !requireClientCertificate(this)) return done(new Error('client-cert is unavailable'), undefined);
      done(null, context);
    },
    ALPNCallback: ({ servername, protocols }) => alpnChoice(modeOf(servername), protocols),
  };
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
  const fallback = contexts.get('no-sni');
  for (const [mode, leaf] of leaves) {
    const context = contexts.get(mode);
    const problem =
      context === undefined || fallback === undefined ? 'its certificate and settings do not load in this runtime' : await checkMode(leaf, fallback, contexts, clientIdentityPem);
    if (problem !== undefined) unavailable.set(mode, problem);
  }
  return unavailable;
}

/**
 * One mode through the listener's own path: the default context first, the
 * mode's picked by SNI. (Node's SNI switch keeps the first context's protocol
 * versions and security level: a mode that needs its own does not pass.)
 */
function checkMode(leaf: ModeLeaf, fallback: SecureContext, contexts: ReadonlyMap<TlsMode, SecureContext>, clientIdentityPem: string): Promise<string | undefined> {
  const { mode } = leaf;
  return new Promise((resolve) => {
    const [serverSide, clientSide] = duplexPair();
    const server = new tls.TLSSocket(serverSide, { isServer: true, secureContext: fallback, ...modeSelection(CHECK_BASE, (m) => contexts.get(m)) });
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
