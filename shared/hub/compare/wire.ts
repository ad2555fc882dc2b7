// One upstream request of the hub's /compare, over a raw socket: the bytes
// exactly as they arrive and how the connection ended, within a time and a
// byte bound. No HTTP client here: a client would hide the very lies the
// compare is there to show (a short body, a reset, a second Content-Length).
import net from 'node:net';
import type { HostPort } from '../../config/config.js';
import { responseComplete } from './response.js';

/** Where one side of a compare is fetched, and the request that goes there. */
export interface Upstream {
  /** The public URL asked for: the host's configured URL, then the path and query. */
  readonly url: string;
  /** Where the socket connects. */
  readonly connect: HostPort;
  /** The request head sent, byte for byte (latin1). */
  readonly request: string;
  /** Why the side cannot be fetched (an https URL without COMPARE_VIA); undefined when it can. */
  readonly unreachable?: string;
}

/** The same product name on both sides, so a log or /dump shows who asked. */
export const COMPARE_USER_AGENT = 'chaos-endpoint-service-compare/1';

/**
 * The upstream for `target` (path and query, already checked) on the host
 * whose public URL is `base`. The socket goes to COMPARE_VIA when set, else
 * to the URL's own host and port, where `localhost` and `*.localhost` mean
 * the loopback (RFC 6761 §6.3: Node's resolver may not know `*.localhost`).
 * The Host line is always the public URL's authority, so the front door
 * routes it as it would a client's request.
 */
export function upstreamFor(base: string, target: string, via: HostPort | undefined): Upstream {
  const url = new URL(base);
  const request =
    `GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nUser-Agent: ${COMPARE_USER_AGENT}\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
  const name = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const connect = via ?? {
    host: name === 'localhost' || name.endsWith('.localhost') ? '127.0.0.1' : name,
    port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
  };
  // The compare speaks plain HTTP only; a TLS front door is reached through COMPARE_VIA (its plain port).
  const unreachable = url.protocol === 'https:' && via === undefined
    ? `${base} is https: the compare speaks plain HTTP only; set COMPARE_VIA to the front door's plain-HTTP address`
    : undefined;
  return { url: base + target, connect, request, ...(unreachable ? { unreachable } : {}) };
}

/**
 * How the reading ended: the server closed (FIN), reset, went quiet past the
 * bound, sent more than the byte bound, or finished a response its framing
 * says is complete and then kept the connection open (despite
 * `Connection: close`); or another socket error came, no connection was
 * made, or our own client left first.
 */
export type WireEnd = 'close' | 'reset' | 'error' | 'timeout' | 'byte-limit' | 'complete-open' | 'connect-failed' | 'aborted';

export interface Capture {
  /** Everything received, at most the byte bound. */
  readonly bytes: Buffer;
  readonly end: WireEnd;
  /** The socket error's code (ECONNRESET, ECONNREFUSED, …) when an error ended the reading. */
  readonly errorCode: string | undefined;
  /** From the start of the connect to the end of the reading. */
  readonly elapsedMs: number;
  /** From the start of the connect to the first byte received; undefined when none came. */
  readonly firstByteMs: number | undefined;
}

export interface WireLimits {
  /** The whole exchange, connect included, ends by then ('timeout'). */
  readonly timeoutMs: number;
  /** Bytes kept per side; the reading stops there ('byte-limit'). */
  readonly maxBytes: number;
  /** After a response complete by its framing, how long to wait for the close (or for bytes beyond it). */
  readonly settleMs: number;
}

/** Connects, sends the request, reads until the connection ends or a bound is reached. Never rejects. */
export function fetchRaw(upstream: Upstream, limits: WireLimits, signal?: AbortSignal): Promise<Capture> {
  const started = performance.now();
  if (upstream.unreachable !== undefined) {
    return Promise.resolve({ bytes: Buffer.alloc(0), end: 'connect-failed', errorCode: undefined, elapsedMs: 0, firstByteMs: undefined });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let firstByteMs: number | undefined;
    let connected = false;
    let done = false;
    let settle: NodeJS.Timeout | undefined;
    const socket = net.connect({ host: upstream.connect.host, port: upstream.connect.port });
    const finish = (end: WireEnd, errorCode?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(settle);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks, received), end, errorCode, elapsedMs: performance.now() - started, firstByteMs });
    };
    const onAbort = (): void => finish('aborted');
    if (signal?.aborted) {
      finish('aborted');
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const deadline = setTimeout(() => finish('timeout'), limits.timeoutMs);
    socket.once('connect', () => {
      connected = true;
      // No half-close after it: a server may read a FIN as the client leaving, and cut what we came to see.
      socket.write(upstream.request, 'latin1');
    });
    socket.on('data', (chunk: Buffer) => {
      firstByteMs ??= performance.now() - started;
      const room = limits.maxBytes - received;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      received += Math.min(chunk.length, room);
      if (chunk.length > room) {
        finish('byte-limit');
        return;
      }
      // A server that keeps the connection open after a complete response would otherwise cost the whole bound.
      clearTimeout(settle);
      if (responseComplete(Buffer.concat(chunks, received))) settle = setTimeout(() => finish('complete-open'), limits.settleMs);
    });
    socket.once('end', () => finish('close'));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (!connected) finish('connect-failed', error.code);
      else finish(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : 'error', error.code);
    });
    socket.once('close', () => finish('close'));
  });
}
