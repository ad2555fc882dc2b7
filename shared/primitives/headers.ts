// The one builder of X-Chaos-* headers (STYLE §4). Chaos responses say what
// chaos they carry; control responses say they are the well-formed twin. Real
// failures (edge errors, parameter errors, the real rate limit) never call
// this module, so a monitor can tell them apart.

export type HeaderValue = string | number | boolean;
/** Ordered header lines, exactly as they go on the wire (duplicates allowed). */
export type HeaderList = Array<readonly [string, string]>;

export const CHAOS_PREFIX = 'X-Chaos-';

export interface Described {
  readonly category: string;
  readonly path: string;
}

/** The fixed lines every response of an endpoint starts with; build once per definition. */
export function chaosBaseHeaders(endpoint: Described): HeaderList {
  return [
    [`${CHAOS_PREFIX}Category`, endpoint.category],
    [`${CHAOS_PREFIX}Endpoint`, endpoint.path],
  ];
}

/** Appends `X-Chaos-<Suffix>: value` lines for each entry, in order. */
export function addChaosHeaders(into: HeaderList, extra: Readonly<Record<string, HeaderValue>>): HeaderList {
  for (const suffix in extra) {
    into.push([`${CHAOS_PREFIX}${suffix}`, String(extra[suffix])]);
  }
  return into;
}

/** The lines addChaosHeaders appends, as text (`X-Chaos-<Suffix>: value` CRLF each), without a tuple per line. */
export function chaosLines(extra: Readonly<Record<string, HeaderValue>>): string {
  let text = '';
  for (const suffix in extra) text += `${CHAOS_PREFIX}${suffix}: ${String(extra[suffix])}\r\n`;
  return text;
}

/** Reports parameters whose out-of-range value was clamped (DESIGN §4). */
export function addClampedHeader(into: HeaderList, clamped: readonly string[]): HeaderList {
  if (clamped.length > 0) into.push([`${CHAOS_PREFIX}Clamped`, clamped.join(', ')]);
  return into;
}

/** The line addClampedHeader appends, as text ('' when nothing was clamped). */
export function clampedLine(clamped: readonly string[]): string {
  return clamped.length > 0 ? `${CHAOS_PREFIX}Clamped: ${clamped.join(', ')}\r\n` : '';
}

/** Control-host lines: this is the well-formed twin of `counterpartUrl` (null: an endpoint without a twin names none). */
export function controlHeaders(counterpartUrl: string | null): HeaderList {
  if (counterpartUrl === null) return [[`${CHAOS_PREFIX}Origin`, 'control']];
  return [
    [`${CHAOS_PREFIX}Origin`, 'control'],
    [`${CHAOS_PREFIX}Counterpart`, counterpartUrl],
  ];
}

/** Serialises a response head: status line, header lines, blank line. */
export function formatHead(status: number, reason: string, headers: HeaderList): string {
  const line = reason === reasonPhrase(status) ? statusLine(status) : `HTTP/1.1 ${status} ${reason}\r\n`;
  return `${line}${headerLines(headers)}\r\n`;
}

/** Header lines as text: `Name: value` CRLF each, in order. */
export function headerLines(headers: HeaderList): string {
  let text = '';
  for (const [name, value] of headers) text += `${name}: ${value}\r\n`;
  return text;
}

/** Status lines with the standard reason, built once per code (three digits: a bounded cache). */
const statusLines: string[] = [];

/** `HTTP/1.1 <status> <reason>` CRLF, with the RFC reason phrase. */
export function statusLine(status: number): string {
  const cached = statusLines[status];
  if (cached !== undefined) return cached;
  const line = `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\n`;
  if (Number.isInteger(status) && status >= 100 && status <= 999) statusLines[status] = line;
  return line;
}

/** RFC 9110 reason phrases for the codes we use; others get a neutral word. */
export const REASONS: Readonly<Record<number, string>> = {
  100: 'Continue', 101: 'Switching Protocols', 102: 'Processing', 103: 'Early Hints',
  200: 'OK', 201: 'Created', 202: 'Accepted', 203: 'Non-Authoritative Information', 204: 'No Content',
  205: 'Reset Content', 206: 'Partial Content', 207: 'Multi-Status', 208: 'Already Reported', 226: 'IM Used',
  300: 'Multiple Choices', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified',
  305: 'Use Proxy', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 406: 'Not Acceptable', 407: 'Proxy Authentication Required', 408: 'Request Timeout',
  409: 'Conflict', 410: 'Gone', 411: 'Length Required', 412: 'Precondition Failed', 413: 'Content Too Large',
  414: 'URI Too Long', 415: 'Unsupported Media Type', 416: 'Range Not Satisfiable', 417: 'Expectation Failed',
  418: "I'm a teapot", 421: 'Misdirected Request', 422: 'Unprocessable Content', 423: 'Locked',
  424: 'Failed Dependency', 425: 'Too Early', 426: 'Upgrade Required', 428: 'Precondition Required',
  429: 'Too Many Requests', 431: 'Request Header Fields Too Large', 451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable',
  504: 'Gateway Timeout', 505: 'HTTP Version Not Supported', 506: 'Variant Also Negotiates',
  507: 'Insufficient Storage', 508: 'Loop Detected', 510: 'Not Extended', 511: 'Network Authentication Required',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Unknown';
}

/** IMF-fixdate, recomputed at most once per second (hoisted off the hot path). */
let cachedDate = '';
let cachedDateLine = '';
let cachedSecond = -1;
export function httpDate(nowMs: number = Date.now()): string {
  const second = Math.floor(nowMs / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedDate = new Date(second * 1000).toUTCString();
    cachedDateLine = `Date: ${cachedDate}\r\n`;
  }
  return cachedDate;
}

/** The `Date: <httpDate()>` CRLF line, cached with the date. */
export function dateLine(nowMs?: number): string {
  httpDate(nowMs);
  return cachedDateLine;
}
