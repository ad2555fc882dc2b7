// A raw-socket HTTP client for tests: it returns the exact bytes, when they
// arrived, and how the connection ended, hiding nothing a library would.
import net from 'node:net';

export type EndKind = 'fin' | 'reset' | 'timeout' | 'stopped';

/**
 * Tells a FIN from a reset once the socket reports its end. A busy client
 * that reads the last bytes and the reset in one turn gets an end from libuv
 * (a partial read, then POLLHUP, reads as EOF), so the end alone can't tell.
 * A zero-length write sends nothing on the wire but asks the kernel: after a
 * reset it fails with ECONNRESET (or EPIPE), after a FIN it succeeds. The
 * socket must be half-open (`allowHalfOpen`) and not ended by us.
 */
export function endKindAtEof(socket: net.Socket, report: (end: 'fin' | 'reset') => void): void {
  if (socket.writableEnded || socket.destroyed) return report('fin');
  socket.write(Buffer.alloc(0), (error) => report(error ? 'reset' : 'fin'));
}

export interface Arrival {
  /** Milliseconds since the request was written. */
  readonly at: number;
  readonly bytes: number;
}

export interface RawResult {
  readonly data: Buffer;
  readonly end: EndKind;
  readonly arrivals: readonly Arrival[];
  /** Milliseconds from write to the end (FIN, reset, stop or timeout). */
  readonly elapsedMs: number;
}

export interface RawOptions {
  readonly host?: string;
  /** Source address to connect from (another loopback address is another client). */
  readonly localAddress?: string;
  /** Give up after this long with end 'timeout' (default 5000). */
  readonly timeoutMs?: number;
  /**
   * How long the server may take to send its first byte; `timeoutMs` then counts from that byte. Unset: `timeoutMs`
   * counts from the connect. For a short wait on a response that may never complete, which a busy machine must not
   * turn into no response at all.
   */
  readonly firstByteTimeoutMs?: number;
  /** Stop (and destroy the socket) as soon as this returns true. */
  readonly until?: (data: Buffer) => boolean;
  /** Half-close our side after writing (default false). */
  readonly endAfterWrite?: boolean;
}

/** Connects, writes `request`, collects everything until FIN, reset, `until` or timeout. */
export function rawExchange(port: number, request: string | Buffer | readonly (string | Buffer)[], options: RawOptions = {}): Promise<RawResult> {
  const { host = '127.0.0.1', localAddress, timeoutMs = 5000, firstByteTimeoutMs, until, endAfterWrite = false } = options;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const arrivals: Arrival[] = [];
    let start = 0;
    let done = false;
    const socket = net.connect({ port, host, allowHalfOpen: true, ...(localAddress ? { localAddress } : {}) }, () => {
      start = performance.now();
      const parts = Array.isArray(request) ? request : [request];
      for (const part of parts) socket.write(typeof part === 'string' ? Buffer.from(part, 'latin1') : part);
      if (endAfterWrite) socket.end();
    });
    const finish = (end: EndKind): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), end, arrivals, elapsedMs: performance.now() - start });
    };
    let timer = setTimeout(() => finish('timeout'), firstByteTimeoutMs ?? timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      if (firstByteTimeoutMs !== undefined && chunks.length === 0) {
        clearTimeout(timer);
        timer = setTimeout(() => finish('timeout'), timeoutMs);
      }
      chunks.push(chunk);
      arrivals.push({ at: performance.now() - start, bytes: chunk.length });
      if (until && until(Buffer.concat(chunks))) finish('stopped');
    });
    socket.on('end', () => endKindAtEof(socket, finish));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') finish('reset');
      else if (!done) {
        done = true;
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('close', () => finish('fin'));
  });
}

/** A request head with CRLF line ends; `Host` first unless `headers` has one. */
export function get(path: string, headers: Readonly<Record<string, string>> = {}, method = 'GET'): string {
  const lines = [`${method} ${path} HTTP/1.1`];
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'host')) lines.push('Host: 127.0.0.1');
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export interface ParsedResponse {
  readonly status: number;
  readonly reason: string;
  readonly statusLine: string;
  /** Header lines exactly as received (name case kept). */
  readonly headerLines: readonly (readonly [string, string])[];
  /** First value of a header, case-insensitive. */
  header(name: string): string | undefined;
  /** All values of a header, case-insensitive. */
  headers(name: string): string[];
  /** Everything after the head, without interpreting any framing. */
  readonly rest: Buffer;
  /** Bytes of the head, CRLFCRLF included. */
  readonly headLength: number;
}

export function parseHead(data: Buffer): ParsedResponse {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`no complete response head in ${JSON.stringify(data.toString('latin1').slice(0, 200))}`);
  const lines = data.toString('latin1', 0, end).split('\r\n');
  const statusLine = lines[0] as string;
  const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine);
  if (!m) throw new Error(`bad status line ${JSON.stringify(statusLine)}`);
  const headerLines = lines.slice(1).map((line): readonly [string, string] => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  const all = (name: string): string[] => headerLines.filter(([n]) => n.toLowerCase() === name.toLowerCase()).map(([, v]) => v);
  return {
    status: Number(m[1]),
    reason: m[2] as string,
    statusLine,
    headerLines,
    header: (name) => all(name)[0],
    headers: all,
    rest: data.subarray(end + 4),
    headLength: end + 4,
  };
}

/** Splits a stream of responses framed by Content-Length (for pipelining tests). */
export function splitResponses(data: Buffer, headOnly = false): { response: ParsedResponse; body: Buffer }[] {
  const out: { response: ParsedResponse; body: Buffer }[] = [];
  let rest = data;
  while (rest.length > 0) {
    const response = parseHead(rest);
    const length = headOnly ? 0 : Number(response.header('content-length') ?? 0);
    out.push({ response, body: response.rest.subarray(0, length) });
    rest = response.rest.subarray(length);
  }
  return out;
}

/** True once `data` holds a complete response head and `Content-Length` bytes of body. */
export function completeByLength(data: Buffer): boolean {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const m = /\r\ncontent-length: *(\d+)/i.exec(data.toString('latin1', 0, end));
  return data.length >= end + 4 + (m ? Number(m[1]) : 0);
}
