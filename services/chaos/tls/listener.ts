// The TLS chaos listener (docs/tls.md): one port, the server name picks the
// mode's SecureContext (`<mode>.<TLS_BASE>`; no SNI or another name: the
// no-sni default), and past the handshake the socket goes to the chaos
// server's own connection code, its responses naming the mode in
// X-Chaos-Tls-Mode. The per-IP connection cap counts the TCP connection
// before the handshake; a handshake gets HANDSHAKE_TIMEOUT_MS.
import type { Socket } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import type { Logger } from '../../../shared/config/log.js';
import { transportFacts } from '../../../shared/pipeline/transport.js';
import { listenOn } from '../../../shared/runtime/listen.js';
import { modeSelection } from '../../../shared/tls/handshake.js';
import { RENEW_MS, type TlsMaterial } from '../../../shared/tls/material.js';
import { tlsModeOfName, type TlsMode } from '../../../shared/tls/modes.js';
import type { ChaosServer } from '../server.js';
import { setTransportLines } from '../transport-lines.js';

/** From the TCP accept to the end of the handshake (a stalled hello is closed then). */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

export class TlsListener {
  readonly server: tls.Server;
  #renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly chaos: ChaosServer,
    private readonly material: TlsMaterial,
    private readonly logger: Logger,
  ) {
    const base = chaos.config.tls.base;
    const modeOf = (servername: string | false | null | undefined): TlsMode => (servername ? tlsModeOfName(servername, base) : undefined) ?? 'no-sni';
    this.server = tls.createServer({
      // Not before the handshake: a client gone mid-hello must close, or its socket (and cap slot) would stay half-open.
      allowHalfOpen: false,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      ...modeSelection(base, (mode) => material.context(mode)),
    });
    this.#useDefault();
    this.server.maxConnections = chaos.config.maxConnections;
    this.server.on('connection', (socket: Socket) => void chaos.caps.admit(socket));
    this.server.on('secureConnection', (socket: TLSSocket) => this.#accept(socket, modeOf(socket.servername)));
    // A garbage hello, a refused handshake, a timeout: node destroys the socket; nothing is logged per client above debug.
    // With a listener here node leaves the socket open: it is destroyed here (a timeout included).
    this.server.on('tlsClientError', (error: Error & { code?: string }, socket: TLSSocket) => {
      socket.destroy();
      this.logger.debug({ code: error.code }, 'TLS handshake failed');
    });
  }

  /** Hellos without SNI get the no-sni mode's certificate (none when it is unavailable: they fail). */
  #useDefault(): void {
    const leaf = this.material.leaves.get('no-sni');
    if (leaf !== undefined && this.material.context('no-sni') !== undefined) this.server.setSecureContext(leaf.context);
  }

  #accept(socket: TLSSocket, mode: TlsMode): void {
    // Past the handshake the socket is the chaos connection's, which allows half-open as on plain sockets.
    socket.allowHalfOpen = true;
    const alpn = typeof socket.alpnProtocol === 'string' ? socket.alpnProtocol : undefined;
    const servername = typeof socket.servername === 'string' ? socket.servername : undefined;
    const facts = transportFacts('http/1.1', true, alpn, servername);
    const lines: Record<string, string> = { 'Tls-Mode': mode };
    if (mode === 'client-cert') {
      const subject = socket.getPeerCertificate().subject as Record<string, unknown> | undefined;
      lines['Tls-Client-Subject'] = subject ? Object.entries(subject).map(([k, v]) => `${k}=${String(v)}`).join(', ') : 'none';
    }
    setTransportLines(facts, lines);
    if (mode === 'close-without-notify') {
      // Every way the connection code ends this socket becomes a TCP close after the bytes written: no close_notify.
      socket.end = function endWithoutNotify(this: TLSSocket) {
        this.write('', () => this.destroy());
        return this;
      } as TLSSocket['end'];
    }
    this.chaos.accept(socket, facts, true);
  }

  async listen(port: number, host: string): Promise<number> {
    const bound = await listenOn(this.server, port, host);
    this.#renewal = setInterval(() => {
      this.material.remint().then(
        () => this.#useDefault(),
        (error: unknown) => this.logger.error({ err: error }, 'TLS leaves could not be re-minted; the last ones stay'),
      );
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
