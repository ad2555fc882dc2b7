// Which transports reach an endpoint (EndpointDef.transports): the protocols
// it is served over and whether TLS is required, refused or either. The
// pipeline judges every request against it (shared/pipeline/transport.ts); a
// request over a transport the endpoint does not serve is a real 421.

/** The protocols a chaos request can come over (docs/architecture.md); HTTP/2 is prior knowledge on the chaos port (services/chaos/http2/). */
export const PROTOCOLS = ['http/1.1', 'h2', 'websocket'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** What an endpoint declares; every part has a default. */
export interface TransportSpec {
  /** The protocols it is served over. Default: HTTP/1.1 alone. */
  readonly protocols?: readonly Protocol[];
  /** `either` (the default): plain or TLS; `tls`: over TLS only; `plain`: never over TLS. */
  readonly tls?: 'either' | 'tls' | 'plain';
  /** Why its lie has no HTTP/2 form (a wire-only lie): over HTTP/2 it is a real 501 saying so, not the 421 of an endpoint not mapped. */
  readonly noH2?: string;
}

/** The names a reason gives the protocols. */
const PROTOCOL_NAMES: Readonly<Record<Protocol, string>> = { 'http/1.1': 'HTTP/1.1', h2: 'HTTP/2', websocket: 'WebSocket' };

/** One bit per protocol, plain and over TLS: what a request's transport is, for a check by mask. */
export function transportBit(protocol: Protocol, tls: boolean): number {
  return 1 << (PROTOCOLS.indexOf(protocol) * 2 + (tls ? 1 : 0));
}

const masks = new WeakMap<object, number>();

/** The transports an endpoint serves, as a mask of transportBit values (computed once per definition). */
export function transportMask(endpoint: { readonly transports?: TransportSpec }): number {
  let mask = masks.get(endpoint);
  if (mask === undefined) {
    const spec = endpoint.transports;
    const tls = spec?.tls ?? 'either';
    mask = 0;
    for (const protocol of spec?.protocols ?? ['http/1.1']) {
      if (tls !== 'tls') mask |= transportBit(protocol, false);
      if (tls !== 'plain') mask |= transportBit(protocol, true);
    }
    masks.set(endpoint, mask);
  }
  return mask;
}

/** A transport in words, for a reason: `HTTP/1.1 over TLS`. */
export function transportName(protocol: Protocol, tls: boolean): string {
  return `${PROTOCOL_NAMES[protocol]}${tls ? ' over TLS' : ' without TLS'}`;
}

/** What an endpoint serves, in words: `HTTP/1.1 or WebSocket, over TLS only`. */
export function servedTransports(spec: TransportSpec | undefined): string {
  const protocols = (spec?.protocols ?? ['http/1.1']).map((p) => PROTOCOL_NAMES[p]).join(' or ');
  const tls = spec?.tls ?? 'either';
  return tls === 'either' ? `${protocols}, plain or over TLS` : tls === 'tls' ? `${protocols}, over TLS only` : `${protocols}, without TLS only`;
}
