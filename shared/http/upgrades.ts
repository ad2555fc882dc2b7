// Requests that asked to switch protocols on node:http (its 'upgrade' event):
// the pipeline answers them like any other request, and an endpoint that
// switches (the control host's WebSocket twins) takes the socket and the bytes
// read past the head from here. Any other answer closes the socket after it.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface Upgrade {
  readonly socket: Socket;
  /** Bytes the client sent after the request head (node:http read them with it). */
  readonly head: Buffer;
}

const pending = new WeakMap<IncomingMessage, Upgrade>();
const taken = new WeakSet<IncomingMessage>();
/** The status line an endpoint wrote on a taken socket itself, past node:http (ws writes its 101 so). */
const switched = new WeakMap<IncomingMessage, number>();

/** Called by the service for an upgrade request before it is dispatched. */
export function offerUpgrade(req: IncomingMessage, upgrade: Upgrade): void {
  pending.set(req, upgrade);
}

/** The socket of an upgrade request, once: the caller owns it from now on. Undefined for a plain request. */
export function takeUpgrade(req: IncomingMessage): Upgrade | undefined {
  const upgrade = pending.get(req);
  if (upgrade === undefined || taken.has(req)) return undefined;
  taken.add(req);
  return upgrade;
}

/** Whether an endpoint took the request's socket. */
export function upgradeTaken(req: IncomingMessage): boolean {
  return taken.has(req);
}

/** Records that the endpoint holding the socket wrote `status` (a 101) itself: the observation reports it. */
export function markSwitched(req: IncomingMessage, status = 101): void {
  switched.set(req, status);
}

/** The status an endpoint wrote on the taken socket, if it said so. */
export function switchedStatus(req: IncomingMessage): number | undefined {
  return switched.get(req);
}
