// Writes made in one turn of the event loop leave together. The first write of
// a turn to a socket corks it; once the turn's I/O callbacks have run
// (setImmediate: the check phase, right after the poll), all of them are
// uncorked in one go. Waking the reader is the costly
// part of a loopback write (most of its system time on a virtual machine, where
// the wake-up is an interrupt to another CPU): a client woken by the first
// response of a turn now finds the rest already there instead of being woken
// once per response. The bytes, and their order on each socket, are unchanged;
// only their grouping into syscalls is. Anything that would drop buffered bytes
// calls flushTurn first (a reset), or destroys through destroyFlushed; end()
// uncorks by itself.
// Writes on a schedule (a response's own timers: a /slow answer, a /drip
// chunk) are not held: run from the timers phase they would wait out the whole
// poll phase, which under load is the lateness the schedule is judged by
// (held.js measured the /drip p99 three times later, batched).
import { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

const corked: Socket[] = [];
let scheduled = false;
/** Inside a timer's callback (see unbatched): writes go straight out. */
let unbatchedDepth = 0;

function uncorkAll(): void {
  scheduled = false;
  // A socket ended (end() uncorks fully) or flushed meanwhile is no longer corked.
  for (const socket of corked) if (socket.writableCorked > 0) socket.uncork();
  corked.length = 0;
}

/** Holds `socket`'s writes until the end of this turn (no-op when they already are); inside unbatched, sends what it holds instead. */
export function corkForTurn(socket: Socket): void {
  // Nothing else leaves a socket corked between two synchronous steps, so corked means "by us, this turn".
  if (unbatchedDepth > 0) {
    // A write that keeps its time: what this turn held on the socket goes first, now (the order is kept).
    if (socket.writableCorked > 0) socket.uncork();
    return;
  }
  if (socket.writableCorked > 0) return;
  socket.cork();
  corked.push(socket);
  if (!scheduled) {
    scheduled = true;
    setImmediate(uncorkAll);
  }
}

/** Sends now what this turn holds back on `socket`: before destroying it, which would drop those bytes. */
export function flushTurn(socket: Socket): void {
  if (socket.writableCorked > 0) socket.uncork();
}

/** Destroys `socket` after sending what this turn holds back on it (a destroy would drop those bytes). */
export function destroyFlushed(socket: Socket): void {
  flushTurn(socket);
  socket.destroy();
}

/**
 * A TCP reset, dropping anything unsent. Node resets only a socket on a TCP
 * handle: a TLS socket is reset through the TCP socket under it (node's
 * `_parent`, set on every server-side TLS socket), and dies with it.
 */
export function resetSocket(socket: Socket): void {
  const tcp: unknown = (socket as { _parent?: unknown })._parent;
  if (socket instanceof TLSSocket && tcp instanceof Socket) {
    tcp.resetAndDestroy();
    socket.destroy();
  } else socket.resetAndDestroy();
}

/**
 * Runs `fn` with its writes sent at once, not held for the turn: a timed write
 * keeps its time, and the first write of a schedule (a /drip's first slice)
 * leaves when the schedule starts, not at the end of a turn that a burst of
 * requests can make long.
 */
export function unbatched<T>(fn: () => T): T {
  unbatchedDepth++;
  try {
    return fn();
  } finally {
    unbatchedDepth--;
  }
}
