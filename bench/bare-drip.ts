// The floor of a held /drip stream (issue 31): a bare node:net server that
// answers every request the way chaos /drip?bytes=N&chunk=C&interval=I does
// on the wire (the head with the first chunk, then a chunk every interval on
// its own timer, then the connection kept alive), /slow?ms=N with a small JSON
// 200 after its own timer of N ms (as chaos /slow answers), and any other path
// with a small 200 (an idle keep-alive connection after it). No parser beyond a
// search for CRLF CRLF, no pipeline, no metrics: what node's socket and one
// timer per stream cost, which nothing of ours can go below. Run as a child it
// reports its port like our services (bench/held-memory.ts starts it with
// chaos's node flags, so both have the same young generation).
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { listen } from './minimal-responder.js';

const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');
const STATUS = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}', 'latin1');

/** The drip's numbers from a request line such as `GET /drip?bytes=10&chunk=1&interval=1000 HTTP/1.1`; undefined for any other path. */
function dripOf(requestLine: string): { bytes: number; chunk: number; interval: number } | undefined {
  const target = requestLine.split(' ')[1] ?? '';
  if (!target.startsWith('/drip')) return undefined;
  const query = new URLSearchParams(target.slice(target.indexOf('?') + 1));
  const number = (name: string, fallback: number): number => Number(query.get(name) ?? fallback) || fallback;
  return { bytes: number('bytes', 10), chunk: number('chunk', 1), interval: number('interval', 1000) };
}

/** The delay of `GET /slow?ms=N`, or undefined for any other path. */
function slowOf(requestLine: string): number | undefined {
  const target = requestLine.split(' ')[1] ?? '';
  if (!target.startsWith('/slow')) return undefined;
  return Number(new URLSearchParams(target.slice(target.indexOf('?') + 1)).get('ms') ?? 1000) || 0;
}

function slow(socket: net.Socket, ms: number): void {
  setTimeout(() => {
    if (socket.destroyed) return;
    const body = `{"delayed_ms":${ms}}`;
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 'latin1');
  }, ms);
}

function drip(socket: net.Socket, bytes: number, chunk: number, interval: number): void {
  const body = Buffer.alloc(bytes, '*');
  const head = `HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bytes}\r\n\r\n`;
  let sent = Math.min(chunk, bytes);
  socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body.subarray(0, sent)]));
  const start = performance.now();
  let slices = 1;
  const next = (): void => {
    if (socket.destroyed) return;
    const end = Math.min(sent + chunk, bytes);
    socket.write(body.subarray(sent, end));
    sent = end;
    slices++;
    if (sent < bytes) setTimeout(next, Math.max(0, start + slices * interval - performance.now()));
  };
  if (sent < bytes) setTimeout(next, interval);
}

export function createBareDrip(): net.Server {
  return net.createServer({ noDelay: true, allowHalfOpen: false }, (socket) => {
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      // Every complete head (the benchmarks send one a connection; a pipelining client gets each answered).
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const requestLine = pending.slice(0, pending.indexOf('\r\n'));
        pending = pending.slice(end + CRLFCRLF.length);
        const shape = dripOf(requestLine);
        const delay = shape ? undefined : slowOf(requestLine);
        if (shape) drip(socket, shape.bytes, shape.chunk, shape.interval);
        else if (delay !== undefined) slow(socket, delay);
        else socket.write(STATUS);
      }
    });
    socket.on('error', () => undefined);
  });
}

// As a forked child: listen on a free loopback port and send the same ready message as shared/runtime/run.ts.
if (process.send && process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createBareDrip();
  const port = await listen(server, 0, '127.0.0.1');
  process.send({ type: 'ready', service: 'bare-drip', port, url: `http://127.0.0.1:${port}` });
  process.on('disconnect', () => process.exit(0));
}
