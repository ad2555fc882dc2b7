// Listening with the backlog a proxy in front needs: every server of ours (admin, node:http, node:net) binds here.
import type { Server } from 'node:net';

/**
 * The accept queue asked of the kernel (it caps it at net.core.somaxconn). A
 * proxy in front opens a replica's connections in bursts: past node's default
 * of 511, SYNs are dropped and the client or HAProxy waits out a retransmit or
 * its connect timeout before a retry.
 */
export const LISTEN_BACKLOG = 4096;

/** Listens and resolves with the bound port (the real one when `port` is 0); rejects on EADDRINUSE and the like. */
export function listenOn(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
