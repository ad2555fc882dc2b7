// One client's share of a process, decided when a connection is accepted
// (before any request): at most MAX_CONNECTIONS_PER_IP open connections per
// client address, and a connection that sends nothing is closed after
// FIRST_REQUEST_TIMEOUT_MS. A trusted proxy's connections are not capped here:
// each carries many clients, and the edge applies the per-client cap itself.
// The per-process ceiling is the server's own maxConnections.
import type { Socket } from 'node:net';
import type { Config } from '../config/config.js';
import { peerAddress } from '../config/trust.js';

export class ConnectionCaps {
  readonly #open = new Map<string, number>();
  /** Sockets layered over a TCP socket admit() already counted (a TLS socket): not counted again. */
  readonly #counted = new WeakSet<Socket>();
  /** Connections closed at accept because their client already held the cap (for metrics and tests). */
  refused = 0;

  constructor(private readonly config: Config) {}

  /**
   * Counts a new connection against its client; false (and the socket
   * destroyed) when the client is over its cap.
   */
  admit(socket: Socket): boolean {
    if (this.#counted.has(socket)) return true;
    const cap = this.config.maxConnectionsPerIp;
    // No cap: the peer's address (a getpeername system call) is not read here.
    if (cap === 0) return true;
    const address = peerAddress(socket.remoteAddress);
    if (this.config.trustProxy.isTrusted(address)) return true;
    const open = this.#open.get(address) ?? 0;
    if (open >= cap) {
      this.refused++;
      socket.destroy();
      return false;
    }
    this.#open.set(address, open + 1);
    socket.once('close', () => {
      const left = (this.#open.get(address) ?? 1) - 1;
      if (left <= 0) this.#open.delete(address);
      else this.#open.set(address, left);
    });
    return true;
  }

  /** `socket` runs over a TCP socket admit() took (a TLS listener admits at accept, before the handshake): admit() passes it. */
  counted(socket: Socket): void {
    this.#counted.add(socket);
  }
}
