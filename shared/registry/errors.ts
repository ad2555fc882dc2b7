// Real failures (DESIGN §5): the one table of error codes and the one builder
// of their JSON bodies, for both transports. They never carry X-Chaos-* lines,
// so a monitor can tell them from the chaos we serve on purpose.
import type { HeaderList } from '../primitives/headers.js';
import { jsonBody } from '../primitives/json.js';
import type { RateCheck, RateDecision } from '../store/types.js';

/** Stable `error` codes by status, for the router, the parsers and the edge. */
export const ERROR_CODES = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  // MCP's transport (/mcp): an Accept or Content-Type it cannot serve, too many sessions for one address.
  406: 'not_acceptable',
  408: 'request_timeout',
  413: 'content_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  417: 'expectation_failed',
  421: 'misdirected_request',
  426: 'upgrade_required',
  429: 'too_many_requests',
  431: 'request_header_fields_too_large',
  500: 'internal_error',
  501: 'not_implemented',
  // The front door's own answers (proxy/haproxy-config.ts) when no replica can give one.
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
  505: 'http_version_not_supported',
} as const;
export type ErrorStatus = keyof typeof ERROR_CODES;

/** A complete response of ours (catalog, real failure): status, lines without Date or Connection, and the body. */
export interface PlainResponse {
  readonly status: number;
  readonly headers: HeaderList;
  readonly body: Buffer;
}

export const INTERNAL_ERROR_REASON = 'the endpoint failed; this is a real error, not chaos';

/** `{error, reason}` for a status of the table, or another JSON body (a parameter error's), with accurate framing. */
export function errorResponse(
  status: ErrorStatus,
  reasonOrBody: string | object,
  extra: readonly (readonly [string, string])[] = [],
): PlainResponse {
  const body = jsonBody(typeof reasonOrBody === 'string' ? { error: ERROR_CODES[status], reason: reasonOrBody } : reasonOrBody);
  return errorDocument(status, 'application/json', body, extra);
}

/** A real error whose body is a document of another type (an HTML page for a browser), with accurate framing. */
export function errorDocument(
  status: ErrorStatus,
  contentType: string,
  body: Buffer,
  extra: readonly (readonly [string, string])[] = [],
): PlainResponse {
  const headers: HeaderList = [['Content-Type', contentType], ['Content-Length', String(body.length)]];
  for (const line of extra) headers.push(line);
  return { status, headers, body };
}

/**
 * A request over a transport its endpoint does not serve (EndpointDef.transports):
 * 421, as the connection's context does not fit the target (RFC 9110 §15.5.20);
 * the client may retry over another connection.
 */
export function transportRefusal(path: string, served: string, came: string): PlainResponse {
  return errorResponse(421, `${path} is served over ${served}; this request came over ${came}`);
}

/** The real per-IP limit's answer: 429 with Retry-After, the IETF RateLimit-Policy / RateLimit fields and a problem+json body. */
export interface Refusal extends PlainResponse {
  readonly status: 429;
  /** The policy that refused. */
  readonly policy: string;
}

export function rateLimitRefusal(decision: RateDecision, check: RateCheck): Refusal {
  const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  const window = Math.round(check.periodMs / 1000);
  const body = jsonBody({
    type: 'about:blank',
    title: 'Too Many Requests',
    status: 429,
    detail:
      `The ${check.policy} limit of ${check.limit} requests per ${window} seconds per IP was exceeded; retry after ${retryAfter} s. ` +
      `This is a real limit, not chaos. Running your own stack for a test suite? Start it with RATE_LIMIT_${check.policy.toUpperCase()}=0 to turn it off.`,
    policy: check.policy,
  });
  return {
    status: 429,
    policy: check.policy,
    headers: [
      ['Content-Type', 'application/problem+json'],
      ['Content-Length', String(body.length)],
      ['Retry-After', String(retryAfter)],
      ['RateLimit-Policy', `"${check.policy}";q=${check.limit};w=${window}`],
      ['RateLimit', `"${check.policy}";r=0;t=${retryAfter}`],
    ],
    body,
  };
}

/** The answer to a client that already holds MAX_HELD_PER_IP responses open: a real 429 naming the cap. */
export function heldRefusal(cap: number): Refusal {
  const detail =
    `This client already has ${cap} responses that hold the connection open at once (MAX_HELD_PER_IP); ` +
    'retry when one has ended. This is a real limit, not chaos.';
  return busyRefusal(429, detail, 'held');
}

const BUSY_TITLES = { 429: 'Too Many Requests', 503: 'Service Unavailable' } as const;

/** A real refusal for a cap that frees itself within a second (problem+json, Retry-After: 1), naming the cap's policy. */
export function busyRefusal<S extends keyof typeof BUSY_TITLES>(
  status: S,
  detail: string,
  policy: string,
  extra: readonly (readonly [string, string])[] = [],
): PlainResponse & { readonly status: S; readonly policy: string } {
  const body = jsonBody({ type: 'about:blank', title: BUSY_TITLES[status], status, detail, policy });
  const headers: HeaderList = [['Content-Type', 'application/problem+json'], ['Content-Length', String(body.length)], ['Retry-After', '1']];
  for (const line of extra) headers.push(line);
  return { status, policy, headers, body };
}
