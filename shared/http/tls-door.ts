// The control twins over TLS (issue 28, docs/http2.md "Control twins over
// TLS"): one name, control.<TLS_BASE>, one leaf from the published root
// (HostLeafMaterial, re-minted daily), ALPN h2 and http/1.1. Past the
// handshake the decrypted socket goes to the node:http server's own
// connection handling, whose preface sniffer hands an h2 connection to
// node:http2 (http2-door.ts): the same handlers, pipeline and bounds as the
// plain port (idle, header list, streams, the connection's life, the per-IP
// limits). Before it: the per-IP connection cap at accept, a PROXY v2 header
// from a trusted peer (the front door passes TLS through untouched, so the
// client's address comes that way, as on chaos's TLS listener), and
// TLS_HANDSHAKE_MS for the header, the hello and the handshake together.
import type { Server as HttpServer } from 'node:http';
import net, { type Socket } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/log.js';
import { ProxyHeaderReader } from '../config/proxy-v2.js';
import { peerAddress } from '../config/trust.js';
import type { ConnectionCaps } from '../pipeline/connection-caps.js';
import { PLAIN_HTTP1, transportFacts, type TransportFacts } from '../pipeline/transport.js';
import { listenOn } from '../runtime/listen.js';
import { alpnChoice } from '../tls/handshake.js';
import { RENEW_MS, type HostLeafMaterial } from '../tls/material.js';

/** From the TCP accept to the end of the handshake, PROXY header included (chaos's TLS listener's HANDSHAKE_TIMEOUT_MS). */
export const TLS_HANDSHAKE_MS = 10_000;

/** HTTP/1.1 over this listener's TLS: the pipeline's transport facts for its requests. */
export const TLS_HTTP1: TransportFacts = transportFacts('http/1.1', true);

/** Where a TLS socket behind a trusted proxy keeps the client its PROXY v2 header named (read through node:http2's socket proxies too). */
const PROXIED_CLIENT = Symbol('proxied client');
type Marked = { [PROXIED_CLIENT]?: string };

/** The client a PROXY v2 header named for this connection's socket; undefined: the socket's peer is the client. */
export function proxiedClient(socket: object): string | undefined {
  return (socket as Marked)[PROXIED_CLIENT];
}

/** The transport of an HTTP/1.1 request on node:http's socket: TLS when this listener handed the socket over. */
export function http1Transport(socket: object): TransportFacts {
  return (socket as Partial<TLSSocket>).encrypted === true ? TLS_HTTP1 : PLAIN_HTTP1;
}

/** What the decrypted sockets go to: a node:http server (its 'connection' listeners: the sniffer, the per-IP cap) and its caps. */
export interface TlsDoorTarget {
  readonly server: HttpServer;
  readonly caps: ConnectionCaps;
}

export class HttpTlsDoor {
  readonly server: net.Server;
  /** Handshakes that failed or were refused (for tests and logs). */
  failedHandshakes = 0;

  constructor(
    private readonly target: TlsDoorTarget,
    private readonly material: HostLeafMaterial,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {
    // No half-open before the handshake: a client gone mid-hello closes, and gives its cap slot back.
    this.server = net.createServer({ allowHalfOpen: false, noDelay: true }, (socket) => this.#accept(socket));
    this.server.maxConnections = config.maxConnections;
  }

  /** Counted against its client at once; a trusted peer's PROXY v2 header first (a trusted peer without one is refused, as on chaos). */
  #accept(raw: Socket): void {
    if (!this.target.caps.admit(raw)) return;
    const timer = setTimeout(() => this.#refuse(raw, 'handshake timeout'), TLS_HANDSHAKE_MS);
    raw.once('close', () => clearTimeout(timer));
    raw.on('error', () => undefined);
    if (!this.config.trustProxy.isTrusted(peerAddress(raw.remoteAddress))) return this.#handshake(raw, timer, undefined);
    const reader = new ProxyHeaderReader();
    const onData = (chunk: Buffer): void => {
      const header = reader.read(chunk);
      if (header.kind === 'need-more') return;
      raw.off('data', onData);
      if (header.kind === 'reject') return this.#refuse(raw, header.reason);
      raw.pause();
      if (reader.rest !== undefined && reader.rest.length > 0) raw.unshift(reader.rest);
      // LOCAL: the proxy itself (its peer address stays, and no limit counts it).
      this.#handshake(raw, timer, header.kind === 'proxied' ? header.source : undefined);
    };
    raw.on('data', onData);
  }

  #refuse(raw: Socket, reason: string): void {
    this.failedHandshakes++;
    this.logger.debug({ reason }, 'control TLS connection refused');
    raw.destroy();
  }

  #handshake(raw: Socket, timer: NodeJS.Timeout, client: string | undefined): void {
    // The leaf current now: a re-mint serves the next handshakes.
    const socket = new tls.TLSSocket(raw, {
      isServer: true,
      secureContext: this.material.context,
      ALPNCallback: ({ protocols }: { protocols: string[] }) => alpnChoice(undefined, protocols),
    } as tls.TLSSocketOptions);
    const failed = (error: Error & { code?: string }): void => {
      this.failedHandshakes++;
      this.logger.debug({ code: error.code }, 'control TLS handshake failed');
      socket.destroy();
    };
    socket.once('error', failed);
    socket.once('secure', () => {
      clearTimeout(timer);
      socket.off('error', failed);
      if (client !== undefined) (socket as Marked)[PROXIED_CLIENT] = client;
      // What Node's own tls.Server does on 'secure' (onServerSocketSecure): a TLSSocket made directly stays marked
      // as still handshaking, and node:http2 would then wait for a 'secureConnect' that never comes (and, with
      // the sniffed bytes buffered, throw reading them: measured on Node 24.21).
      (socket as TLSSocket & { secureConnecting: boolean }).secureConnecting = false;
      // Counted at accept (the TCP socket): the server's own cap passes it.
      this.target.caps.counted(socket);
      this.target.server.emit('connection', socket);
    });
  }

  /** Listens, and re-mints the leaf every RENEW_MS until close(). */
  async listen(port: number, host: string): Promise<number> {
    const bound = await listenOn(this.server, port, host);
    this.material.startRenewal((error: unknown) => this.logger.error({ err: error }, 'the control TLS leaf could not be re-minted; the last one stays'), RENEW_MS);
    return bound;
  }

  /** Stops accepting; the node:http server drains the connections it took. */
  close(): Promise<void> {
    this.material.stop();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
