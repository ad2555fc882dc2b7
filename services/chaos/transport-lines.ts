// X-Chaos-* lines a connection's transport adds to every chaos response on it
// (TLS: X-Chaos-Tls-Mode, and the client certificate's subject on
// client-cert), kept per connection's TransportFacts. Plain connections share
// constant facts and never have any, so their responses pay one boolean check.
import { addChaosHeaders, chaosLines, type HeaderList, type HeaderValue } from '../../shared/primitives/headers.js';
import type { TransportFacts } from '../../shared/pipeline/transport.js';

export interface TransportLines {
  readonly list: HeaderList;
  readonly text: string;
}

const byFacts = new WeakMap<TransportFacts, TransportLines>();

/** Gives every response over `facts` these `X-Chaos-<Suffix>` lines (facts of a TLS connection: one object per connection). */
export function setTransportLines(facts: TransportFacts, extra: Readonly<Record<string, HeaderValue>>): void {
  byFacts.set(facts, { list: addChaosHeaders([], extra), text: chaosLines(extra) });
}

/** The lines of `facts`, if any. */
export function transportLines(facts: TransportFacts): TransportLines | undefined {
  return facts.tls ? byFacts.get(facts) : undefined;
}
