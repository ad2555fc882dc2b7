// The exam id a step URL carries (docs/exam.md): `exam=<id>.<step>` in the
// query, which every endpoint ignores like any parameter it does not declare.
// A query parameter rather than a path segment: the step URL stays the
// endpoint's ordinary URL, routing and the decision memo are untouched, and
// the redirect endpoints carry the value into their Locations (a path prefix
// would be lost by every path-absolute Location).

/** `exam=<22 base64url characters>.<step slug>`, as the hub hands it out. */
const EXAM_VALUE_RE = /^[A-Za-z0-9_-]{22}\.[a-z0-9-]{1,40}$/;

/**
 * The exam value of a raw query string, or undefined. The hot path calls this
 * only when the query contains `exam=` (a substring test first, so traffic
 * without it pays one `includes`).
 */
export function examValueOf(query: string): string | undefined {
  let at = query.startsWith('exam=') ? 0 : query.indexOf('&exam=');
  if (at === -1) return undefined;
  if (at > 0) at += 1;
  const end = query.indexOf('&', at);
  const value = query.slice(at + 5, end === -1 ? query.length : end);
  return EXAM_VALUE_RE.test(value) ? value : undefined;
}

/** What a redirect appends to its Location so the next hop is recorded under the same exam step: `&exam=…` or ''. */
export function examCarry(query: string): string {
  if (!query.includes('exam=')) return '';
  const value = examValueOf(query);
  return value === undefined ? '' : `&exam=${value}`;
}

/** The name of the cookie `/redirect-cross-host?cookie=true` sets: the recorder notes whether a request carries it (present or absent, never a value). */
export const HOP_COOKIE = 'chaos_hop';

/** Whether a Cookie header carries HOP_COOKIE. */
export function carriesHopCookie(cookie: string | undefined): boolean {
  return cookie !== undefined && cookie.split(';').some((pair) => pair.trim().startsWith(`${HOP_COOKIE}=`));
}
