// Prior-knowledge HTTP/2 on the node:http ports (control; issue 28): a
// connection whose first bytes are the HTTP/2 preface goes to a node:http2
// server, the bytes read to see it pushed back; any other goes to node:http as
// before. node:http2's compatibility API (Http2ServerRequest/Response) then
// runs the same request handler as node:http. Bounds: node:http2's own
// (session memory, fields per request, concurrent streams on both sides,
// invalid frames, rejected streams), the header list (16 KiB: a real 431), idle 30 s, the connection's life, and at most
// MAX_REQUESTS_PER_CONNECTION streams, as on HTTP/1.1. The per-IP connection
// cap is applied at accept, before the sniff (HttpService).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import http2, { type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { transportFacts, type TransportFacts } from '../pipeline/transport.js';
import { errorResponse } from '../registry/errors.js';

/** The client connection preface (RFC 9113 §3.4). */
export const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** A session with no frame for this long is closed with GOAWAY NO_ERROR. */
export const H2_IDLE_MS = 30_000;
/** How long the first bytes may take to tell HTTP/2 from HTTP/1.1 (node:http's own head timeout after). */
const SNIFF_MS = 10_000;
/** After our GOAWAY, the client has this long to finish its streams and close. */
const LINGER_MS = 5_000;

/** The decoded header list a request may have (advertised in SETTINGS; past it a real 431). */
export const MAX_HEADER_LIST = 16_384;

/** A header list's size as RFC 9113 §6.5.2 counts it: each field's name and value octets, plus 32. */
function headerListSize(raw: readonly string[]): number {
  let size = 0;
  for (const field of raw) size += Buffer.byteLength(field);
  return size + (raw.length / 2) * 32;
}

/** HTTP/2 without TLS (prior knowledge on the plain port), and over TLS (ALPN h2 on control's TLS listener, tls-door.ts). */
export const PLAIN_H2: TransportFacts = transportFacts('h2', false);
export const TLS_H2: TransportFacts = transportFacts('h2', true);

/**
 * The request handler, as node:http calls it. The compatibility API's objects
 * stand in for node:http's: their methods and events are the ones our handlers
 * use (measured over HTTP/2: tests/integration/http2/control-twins.test.ts);
 * a handler that needs the HTTP/2 stream reaches it with http2Stream().
 */
export type DoorHandler = (req: IncomingMessage, res: ServerResponse, transport: TransportFacts, connection: object) => void;

export interface DoorOptions {
  /** The longest a connection lives (MAX_CONNECTION_MS): then GOAWAY, its open streams finish. */
  readonly maxConnectionMs: number;
  /** Streams per connection, as HTTP/1.1's requests per connection: then GOAWAY. */
  readonly maxStreams: number;
}

export class Http2Door {
  readonly server: http2.Http2Server;
  readonly #sessions = new Set<ServerHttp2Session>();

  constructor(options: DoorOptions, handle: DoorHandler) {
    this.server = http2.createServer({
      // node:http2's per-session caps: its buffered output (MB), the fields of one request, the streams each side may open.
      maxSessionMemory: 8,
      maxHeaderListPairs: 128,
      peerMaxConcurrentStreams: 100,
      maxSessionInvalidFrames: 100,
      maxSessionRejectedStreams: 100,
      settings: { maxConcurrentStreams: 100, maxHeaderListSize: MAX_HEADER_LIST, headerTableSize: 4096, enablePush: false },
    });
    this.server.on('session', (session: ServerHttp2Session) => this.#opened(session, options));
    this.server.on('request', (req: Http2ServerRequest, res: Http2ServerResponse) => {
      // SETTINGS_MAX_HEADER_LIST_SIZE is advertised, but node:http2 takes a longer list: the bound is applied here.
      if (headerListSize(req.rawHeaders) > MAX_HEADER_LIST) {
        const refusal = errorResponse(431, `the request's header list is larger than ${MAX_HEADER_LIST} bytes (RFC 9113 §6.5.2, as each field's name, value and 32)`);
        res.writeHead(refusal.status, refusal.headers.flat());
        res.end(refusal.body);
        return;
      }
      // The compatibility API in place of node:http's objects (see DoorHandler); the connection is the session.
      const session = req.stream.session;
      handle(req as unknown as IncomingMessage, res as unknown as ServerResponse, session?.encrypted === true ? TLS_H2 : PLAIN_H2, session ?? req.stream);
    });
  }

  /** A socket that began with the preface: `head` (what was read to see it) is pushed back for node:http2 to read first. */
  accept(socket: Socket, head: Buffer): void {
    // Left paused: the session reads what is buffered itself (on the next tick) and the rest from the handle; flowing, the buffer would be lost.
    socket.unshift(head);
    this.server.emit('connection', socket);
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** GOAWAY to every session (their open streams may finish); destroyed after `graceMs`. */
  close(graceMs: number): Promise<void> {
    const open = [...this.#sessions];
    if (open.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const deadline = setTimeout(() => {
        for (const session of open) session.destroy();
      }, graceMs);
      let left = open.length;
      for (const session of open) {
        session.once('close', () => {
          if (--left === 0) {
            clearTimeout(deadline);
            resolve();
          }
        });
        session.close();
      }
    });
  }

  #opened(session: ServerHttp2Session, options: DoorOptions): void {
    this.#sessions.add(session);
    const timers = new Set<NodeJS.Timeout>();
    // A clean end: GOAWAY with the last stream we took (node:http2 names it), open streams finish, then the socket goes.
    const goaway = (): void => {
      if (session.closed || session.destroyed) return;
      session.close();
      const linger = setTimeout(() => session.destroy(), LINGER_MS);
      timers.add(linger);
    };
    session.setTimeout(H2_IDLE_MS, goaway);
    timers.add(setTimeout(goaway, options.maxConnectionMs));
    let streams = 0;
    session.on('stream', () => {
      if (++streams === options.maxStreams) goaway();
    });
    session.on('error', () => undefined);
    session.once('close', () => {
      this.#sessions.delete(session);
      for (const timer of timers) clearTimeout(timer);
    });
  }
}

/**
 * Puts a preface sniffer in front of node:http's own connection handling on
 * `server`: the first bytes of each connection are read (at most the
 * preface's 24) and the socket goes to `toHttp2` with them when they are the
 * preface, else to node:http with them pushed back. Listeners added to
 * 'connection' after this (the per-IP cap) run at accept as before.
 */
export function sniffHttp2(server: Server, toHttp2: (socket: Socket, head: Buffer) => void): void {
  const httpListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    let seen: Buffer = Buffer.alloc(0);
    const ignore = (): void => undefined;
    const timer = setTimeout(() => socket.destroy(), SNIFF_MS);
    const decide = (chunk: Buffer): void => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, H2_PREFACE.length);
      const preface = seen.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
      if (preface && n < H2_PREFACE.length) return;
      clearTimeout(timer);
      socket.off('data', decide);
      socket.off('error', ignore);
      socket.off('close', stop);
      socket.pause();
      if (preface) return toHttp2(socket, seen);
      socket.unshift(seen);
      for (const listener of httpListeners) listener.call(server, socket);
      socket.resume();
    };
    const stop = (): void => clearTimeout(timer);
    socket.on('data', decide);
    // Until a server owns the socket, a client's reset must not be an uncaught error.
    socket.on('error', ignore);
    socket.once('close', stop);
  });
}

/** The HTTP/2 stream of a request that came through the door; undefined over HTTP/1.1. */
export function http2Stream(req: IncomingMessage): http2.ServerHttp2Stream | undefined {
  const compat: unknown = req;
  return compat instanceof http2.Http2ServerRequest ? compat.stream : undefined;
}
