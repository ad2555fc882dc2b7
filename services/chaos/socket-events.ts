// A chaos connection's socket listeners, shared by every connection: each
// finds its connection on the socket, so a connection costs no closures (at
// thousands of held connections they were a fifth of our heap per connection;
// bench/JOURNAL.md, issue 31).
import type { Socket } from 'node:net';

/** What a connection does on its socket's events. */
export interface SocketEvents {
  onSocketData(chunk: Buffer): void;
  /** The client's FIN. */
  onSocketEnd(): void;
  onSocketClose(): void;
}

const OWNER = Symbol('socket events owner');
type OwnedSocket = Socket & { [OWNER]: SocketEvents };

/** Sends `socket`'s data, end and close to `owner`; errors are ignored (a client that resets or vanishes is normal here, and 'close' follows). */
export function listenToSocket(socket: Socket, owner: SocketEvents): void {
  (socket as OwnedSocket)[OWNER] = owner;
  socket.on('data', onData).on('end', onEnd).on('error', ignore).on('close', onClose);
}

function onData(this: OwnedSocket, chunk: Buffer): void {
  this[OWNER].onSocketData(chunk);
}

function onEnd(this: OwnedSocket): void {
  this[OWNER].onSocketEnd();
}

function onClose(this: OwnedSocket): void {
  this[OWNER].onSocketClose();
}

function ignore(): void {}
