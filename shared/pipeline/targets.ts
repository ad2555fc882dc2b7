// Request targets and Host values as the pipeline and its transports compare
// them: an absolute-form target reduced to its origin form, a Host normalised
// the way our own public authorities are.

/** The host name of a Host value, without port or trailing dot, lower-cased. */
export function hostnameOf(host: string): string {
  const h = normalizeAuthority(host);
  const colon = h.lastIndexOf(':');
  return colon > h.lastIndexOf(']') ? h.slice(0, colon) : h;
}

/**
 * Host as compared with our public authorities: lower case, no trailing dot on
 * the name, no explicit :80 (the WHATWG URL parser drops it from ours too).
 */
export function normalizeAuthority(host: string): string {
  let h = host.toLowerCase();
  if (h.endsWith(':80')) h = h.slice(0, -3);
  const colon = h.lastIndexOf(':');
  const name = colon > h.lastIndexOf(']') ? h.slice(0, colon) : h;
  const port = h.slice(name.length);
  return name.endsWith('.') ? `${name.slice(0, -1)}${port}` : h;
}

/**
 * The origin-form of a request target: an absolute-form target (RFC 9112
 * §3.2.2, sent through forward proxies) loses its scheme and authority, and a
 * fragment (which a client must not send) is dropped, as the chaos parser does.
 */
export function originForm(target: string): string {
  const hash = target.indexOf('#');
  const sent = hash === -1 ? target : target.slice(0, hash);
  if (sent.startsWith('/')) return sent;
  const m = /^https?:\/\/[^/?]*(.*)$/i.exec(sent);
  if (!m) return sent;
  const rest = m[1] as string;
  return rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
}

/** The path of a request target (origin- or absolute-form), still percent-encoded. */
export function pathOf(target: string): string {
  const origin = originForm(target);
  const q = origin.indexOf('?');
  return q === -1 ? origin : origin.slice(0, q);
}
