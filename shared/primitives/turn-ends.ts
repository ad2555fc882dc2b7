// Responses of the node:http hosts (control, bots) that end in one turn of
// the event loop leave together: the head is stored at once (writeHead; so
// headersSent is true from then on), the end (body and send) runs with the
// turn's others once its callbacks have run (setImmediate). As on the chaos
// wire (services/chaos/turn-writes.ts), waking the reader is most of a
// loopback write's cost; a client woken by the first response of a turn finds
// the rest already there. node:http's end() uncorks its socket fully, so the
// chaos host's cork cannot be used here. Bytes and their order are unchanged.
import type { ServerResponse } from 'node:http';

const responses: ServerResponse[] = [];
const bodies: (Buffer | string | undefined)[] = [];

function endAll(): void {
  // By index: an end that queued another (none today) is served in the same pass.
  for (let i = 0; i < responses.length; i++) {
    const res = responses[i] as ServerResponse;
    // Destroyed meanwhile (the client left, a failure cut it): nothing to send.
    if (!res.destroyed && !res.writableEnded) res.end(bodies[i]);
  }
  responses.length = 0;
  bodies.length = 0;
}

/** res.writeHead(status, head) now; res.end(body) with the rest of this turn's. */
export function respondInTurn(res: ServerResponse, status: number, head: string[], body: Buffer | string | undefined): void {
  res.writeHead(status, head);
  responses.push(res);
  bodies.push(body);
  if (responses.length === 1) setImmediate(endAll);
}
