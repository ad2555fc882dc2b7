// X-Chaos-* lines a connection's transport adds to every chaos response on it
// (TLS: X-Chaos-Tls-Mode, and the client certificate's subject on
// client-cert), kept per connection's TransportFacts. Plain connections share
// constant facts and never have any, so their responses pay one boolean check.
import { addChaosHeaders, chaosLines, type HeaderList, type HeaderValue } from '../../shared/primitives/headers.js';
import type { TransportFacts } from '../../shared/pipeline/transport.js';

export interface TransportLines {
  readonly list: HeaderList;
  readonly text: string;
  /**
   * 1 and up: lines every connection of their kind shares (a TLS mode's), so a
   * recorded response with them may be replayed on another such connection
   * (the recordings keep one per kind); undefined: this connection's own
   * (client-cert's subject), never recorded or replayed.
   */
  readonly shared: number | undefined;
}

const byFacts = new WeakMap<TransportFacts, TransportLines>();

/** These `X-Chaos-<Suffix>` lines, built once: `shared` as TransportLines.shared says. */
export function transportLinesOf(extra: Readonly<Record<string, HeaderValue>>, shared?: number): TransportLines {
  return { list: addChaosHeaders([], extra), text: chaosLines(extra), shared };
}

/** Gives every response over `facts` these lines (facts of a TLS connection: one object per connection). */
export function setTransportLines(facts: TransportFacts, lines: TransportLines): void {
  byFacts.set(facts, lines);
}

/** The lines of `facts`, if any. */
export function transportLines(facts: TransportFacts): TransportLines | undefined {
  return facts.tls ? byFacts.get(facts) : undefined;
}
