// The TLS chaos listener (docs/tls.md): one port; the server name in the
// ClientHello (`<mode>.<TLS_BASE>`; none or another name: the no-sni default)
// picks the mode, whose context is the TLS socket's first and only one (so
// its versions and security level hold), and past the handshake the socket
// goes to the chaos server's own connection code, its responses naming the
// mode in X-Chaos-Tls-Mode. The per-IP connection cap counts the TCP
// connection at accept; the PROXY v2 header (behind the front door), the hello
// and the handshake together get HANDSHAKE_TIMEOUT_MS.
import net, { type Socket } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import type { Logger } from '../../../shared/config/log.js';
import { transportFacts } from '../../../shared/pipeline/transport.js';
import { listenOn } from '../../../shared/runtime/listen.js';
import { modeSocketOptions } from '../../../shared/tls/handshake.js';
import { RENEW_MS, type TlsMaterial } from '../../../shared/tls/material.js';
import { TLS_MODES, tlsModeOfName, type TlsMode } from '../../../shared/tls/modes.js';
import { peerAddress } from '../../../shared/config/trust.js';
import { ProxyHeaderReader, type ClientOf } from '../../../shared/config/proxy-v2.js';
import type { ChaosServer } from '../server.js';
import { setTransportLines, transportLinesOf, type TransportLines } from '../transport-lines.js';
import { readClientHello } from './client-hello.js';

/** From the TCP accept to the end of the handshake (a stalled hello is closed then). */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Each mode's X-Chaos-Tls-Mode line, built once and shared by its connections, so their responses may be replayed (server.ts). */
const MODE_LINES = Object.fromEntries(TLS_MODES.map((mode, i) => [mode, transportLinesOf({ 'Tls-Mode': mode }, i + 1)])) as Record<TlsMode, TransportLines>;

export class TlsListener {
  readonly server: net.Server;
  #renewal: NodeJS.Timeout | undefined;
  /** Handshakes that failed or were refused (for tests and logs). */
  failedHandshakes = 0;

  constructor(
    private readonly chaos: ChaosServer,
    private readonly material: TlsMaterial,
    private readonly logger: Logger,
  ) {
    // No half-open before the handshake: a client gone mid-hello closes, and gives its cap slot back.
    this.server = net.createServer({ allowHalfOpen: false, noDelay: true }, (socket) => this.#hello(socket));
    this.server.maxConnections = chaos.config.maxConnections;
  }

  /**
   * Reads the ClientHello (bounded in bytes and time), then serves the mode it
   * names. From a trusted proxy (TRUST_PROXY: our front door), a PROXY v2
   * header comes first and names the client, under the plain port's rules
   * (connection.ts): a trusted peer without one is refused, LOCAL is the proxy
   * itself, and the per-IP connection cap is the edge's to apply.
   */
  #hello(raw: Socket): void {
    if (!this.chaos.caps.admit(raw)) return;
    const timer = setTimeout(() => this.#refuse(raw, 'handshake timeout'), HANDSHAKE_TIMEOUT_MS);
    raw.once('close', () => clearTimeout(timer));
    raw.on('error', () => undefined);
    const peer = peerAddress(raw.remoteAddress);
    let client: ClientOf = { address: peer, proxySelf: false };
    let proxyHeader = this.chaos.config.trustProxy.isTrusted(peer) ? new ProxyHeaderReader() : undefined;
    let received: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      if (proxyHeader !== undefined) {
        const header = proxyHeader.read(chunk);
        if (header.kind === 'need-more') return;
        if (header.kind === 'reject') return this.#refuse(raw, header.reason);
        client = header.kind === 'proxied' ? { address: header.source, proxySelf: false } : { address: peer, proxySelf: true };
        chunk = proxyHeader.rest ?? Buffer.alloc(0);
        proxyHeader = undefined;
        if (chunk.length === 0) return;
      }
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const read = readClientHello(received);
      if (read.state === 'more') return;
      raw.off('data', onData);
      if (read.state === 'refused') return this.#refuse(raw, read.reason);
      raw.pause();
      raw.unshift(received);
      this.#handshake(raw, read.servername, timer, client);
    };
    raw.on('data', onData);
  }

  #refuse(raw: Socket, reason: string): void {
    this.failedHandshakes++;
    this.logger.debug({ reason }, 'TLS hello refused');
    raw.destroy();
  }

  #handshake(raw: Socket, servername: string | undefined, timer: NodeJS.Timeout, client: ClientOf): void {
    const mode: TlsMode = (servername !== undefined ? tlsModeOfName(servername, this.chaos.config.tls.base) : undefined) ?? 'no-sni';
    const context = this.material.context(mode);
    // An unavailable mode fails its handshake: never a wrong lie.
    if (context === undefined) return this.#refuse(raw, `mode ${mode} is unavailable`);
    const socket = new tls.TLSSocket(raw, modeSocketOptions(mode, context, this.material.stapler(mode)));
    const failed = (error: Error & { code?: string }): void => {
      this.failedHandshakes++;
      this.logger.debug({ code: error.code }, 'TLS handshake failed');
      socket.destroy();
    };
    socket.once('error', failed);
    socket.once('secure', () => {
      clearTimeout(timer);
      socket.off('error', failed);
      this.#accept(socket, mode, servername, client);
    });
  }

  #accept(socket: TLSSocket, mode: TlsMode, servername: string | undefined, client: ClientOf): void {
    const alpn = typeof socket.alpnProtocol === 'string' ? socket.alpnProtocol : undefined;
    // ALPN h2 (issue 28): the connection code hands the socket to the HTTP/2 session at its first bytes. alpn-lie keeps its lie: HTTP/1.1.
    const facts = transportFacts(alpn === 'h2' && mode !== 'alpn-lie' ? 'h2' : 'http/1.1', true, alpn, servername);
    if (mode === 'client-cert') {
      const subject = socket.getPeerCertificate().subject as Record<string, unknown> | undefined;
      const named = subject ? Object.entries(subject).map(([k, v]) => `${k}=${String(v)}`).join(', ') : 'none';
      setTransportLines(facts, transportLinesOf({ 'Tls-Mode': mode, 'Tls-Client-Subject': named }));
    } else {
      setTransportLines(facts, MODE_LINES[mode]);
    }
    if (mode === 'close-without-notify') {
      // Every way the connection code ends this socket becomes a TCP close after the bytes written: no close_notify.
      socket.end = function endWithoutNotify(this: TLSSocket) {
        this.write('', () => this.destroy());
        return this;
      } as TLSSocket['end'];
    }
    this.chaos.accept(socket, facts, true, client);
  }

  async listen(port: number, host: string): Promise<number> {
    const bound = await listenOn(this.server, port, host);
    this.#renewal = setInterval(() => {
      this.material.remint().catch((error: unknown) => this.logger.error({ err: error }, 'TLS leaves could not be re-minted; the last ones stay'));
    }, RENEW_MS);
    this.#renewal.unref();
    return bound;
  }

  /** Stops accepting TLS connections; the chaos server drains the open ones. */
  close(): Promise<void> {
    clearInterval(this.#renewal);
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
