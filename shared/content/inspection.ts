// The inspection family (/anything, /headers, /ip, /user-agent, /dump): the
// request as both hosts see it, the httpbin-shaped JSON both derive from it,
// and the chaos host's documented distortions of what is echoed (docs/inspection.md).
import { isIPv4, isIPv6 } from 'node:net';
import { jsonBody } from '../primitives/json.js';
import { list, oneOf, safeDecode, splitQuery, type ItemOutcome } from '../primitives/params.js';

/** The body bytes echoed at most (the chaos parser keeps these; the control twin reads as many). */
export const INSPECT_BODY_MAX = 64 * 1024;
/** Header names `drop` accepts at most. */
export const DROP_MAX = 16;

/** One field line: the name as received and the value as received (OWS kept on the chaos host; node:http trims it). */
export type HeaderLine = readonly [name: string, value: string];

/** What an inspection endpoint echoes, whichever host parsed it. */
export interface InspectedRequest {
  readonly method: string;
  /** The request-target as sent (origin- or absolute-form). */
  readonly target: string;
  /** The path, still percent-encoded. */
  readonly path: string;
  /** The query string without `?`, still percent-encoded. */
  readonly query: string;
  readonly lines: readonly HeaderLine[];
  /** The first INSPECT_BODY_MAX bytes of the decoded body. */
  readonly body: Buffer;
  /** The whole decoded body's length. */
  readonly bodyBytes: number;
  readonly clientAddress: string;
}

export const INSPECTION_MODES = ['faithful', 'reordered', 'dropped', 'case-mangled', 'truncated-values', 'wrong-ip'] as const;
export type InspectionMode = (typeof INSPECTION_MODES)[number];

/** Header names that the `dropped` mode drops when `drop` names none. */
export const DEFAULT_DROPPED = ['User-Agent'] as const;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function parseHeaderName(raw: string): ItemOutcome<string> {
  return TOKEN.test(raw) ? { ok: true, value: raw } : { ok: false, reason: 'must be a header name (an HTTP token)' };
}

/** A chaos endpoint's `mode`: it offers only the modes that change its answer. */
export function inspectionMode<const M extends readonly [InspectionMode, ...InspectionMode[]]>(modes: M) {
  return oneOf(modes, { default: 'faithful' as M[number], description: 'the distortion of what is echoed (faithful: none)' });
}

/** `drop`, for the endpoints that offer mode=dropped. */
export const DROP_PARAM = list({
  maxItems: DROP_MAX,
  item: 'a header name',
  pattern: TOKEN.source,
  parseItem: parseHeaderName,
  description: `mode=dropped: a header name whose lines are left out, any case (repeatable; default ${DEFAULT_DROPPED.join(', ')})`,
});

/** The modes each chaos endpoint offers: only those that change its answer. */
export const HEADER_MODES = ['faithful', 'reordered', 'dropped', 'case-mangled', 'truncated-values'] as const;
export const IP_MODES = ['faithful', 'wrong-ip'] as const;
export const USER_AGENT_MODES = ['faithful', 'dropped', 'truncated-values'] as const;

/** A value without the optional whitespace around it (RFC 9110 §5.5). */
function trimOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** A name with alternating case: lower at even indexes, upper at odd; the other alternation when that is what was sent. */
export function mangleCase(name: string): string {
  const alternate = (upperAtEven: boolean) =>
    [...name].map((c, i) => ((i % 2 === 0) === upperAtEven ? c.toUpperCase() : c.toLowerCase())).join('');
  const mangled = alternate(false);
  return mangled === name ? alternate(true) : mangled;
}

/** The value's first half (floor of its length, OWS not counted), the OWS around it kept. */
export function halveValue(value: string): string {
  const trimmed = trimOws(value);
  const lead = value.slice(0, value.length - value.trimStart().length);
  const kept = trimmed.slice(0, Math.floor(trimmed.length / 2));
  return `${lead}${kept}${value.slice(lead.length + trimmed.length)}`;
}

/**
 * A documentation address (RFC 5737 / RFC 3849) standing in for the client's:
 * 203.0.113.<last octet> for IPv4, 2001:db8::<last group> for IPv6; another
 * documentation block when the client's address already is that one.
 */
export function wrongAddress(address: string): string {
  if (isIPv4(address)) {
    const last = address.slice(address.lastIndexOf('.') + 1);
    const wrong = `203.0.113.${last}`;
    return wrong === address ? `198.51.100.${last}` : wrong;
  }
  if (isIPv6(address)) {
    const last = address.slice(address.lastIndexOf(':') + 1) || '0';
    const wrong = `2001:db8::${last}`;
    return wrong === address ? `2001:db8::1:${last}` : wrong;
  }
  return '203.0.113.0';
}

/** The header lines as a mode echoes them. */
export function distortLines(lines: readonly HeaderLine[], mode: InspectionMode, drop: readonly string[] | undefined): HeaderLine[] {
  switch (mode) {
    case 'reordered':
      return [...lines].reverse();
    case 'dropped': {
      const names = new Set((drop ?? DEFAULT_DROPPED).map((n) => n.toLowerCase()));
      return lines.filter(([name]) => !names.has(name.toLowerCase()));
    }
    case 'case-mangled':
      return lines.map(([name, value]) => [mangleCase(name), value]);
    case 'truncated-values':
      return lines.map(([name, value]) => [name, halveValue(value)]);
    default:
      return [...lines];
  }
}

/** The request as a mode echoes it: its lines, and its client address for wrong-ip. */
export function distort(req: InspectedRequest, mode: InspectionMode, drop: readonly string[] | undefined): InspectedRequest {
  if (mode === 'faithful') return req;
  if (mode === 'wrong-ip') return { ...req, clientAddress: wrongAddress(req.clientAddress) };
  return { ...req, lines: distortLines(req.lines, mode, drop) };
}

/** Names as received, values without OWS; a name repeated exactly is joined with ", " (RFC 9110 §5.3). */
export function headersObject(lines: readonly HeaderLine[]): Record<string, string> {
  // No prototype: a header named __proto__ is echoed like any other.
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, raw] of lines) {
    const value = trimOws(raw);
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** The lines in order, values without OWS: what an object cannot show (order, repeats). */
function headerLines(lines: readonly HeaderLine[]): [string, string][] {
  return lines.map(([name, value]) => [name, trimOws(value)]);
}

/** Query args decoded as a form would: a name given once is a string, repeated an array (httpbin's shape). */
export function argsObject(query: string): Record<string, string | string[]> {
  const args = Object.create(null) as Record<string, string | string[]>;
  const pairs = splitQuery(query);
  for (const name of pairs.keys()) {
    const values = pairs.getAll(name).map((raw) => safeDecode(raw) ?? raw);
    args[name] = values.length === 1 ? (values[0] as string) : values;
  }
  return args;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text when it is valid UTF-8, else base64 (a cut inside a character makes it base64). */
function bodyFields(req: InspectedRequest): Record<string, unknown> {
  let data: string;
  let encoding: 'utf-8' | 'base64';
  try {
    data = UTF8.decode(req.body);
    encoding = 'utf-8';
  } catch {
    data = req.body.toString('base64');
    encoding = 'base64';
  }
  let json: unknown = null;
  const truncated = req.bodyBytes > req.body.length;
  if (encoding === 'utf-8' && !truncated && data !== '') {
    try {
      json = JSON.parse(data);
    } catch {
      json = null;
    }
  }
  return { data, data_encoding: encoding, data_bytes: req.bodyBytes, data_truncated: truncated, json };
}

/** /anything: httpbin's fields (method, url, args, headers, origin, data, json) plus the path, the lines in order and the body's bounds. */
export function anythingBody(req: InspectedRequest, baseUrl: string): Buffer {
  const origin = req.target.startsWith('/') ? req.target : req.path + (req.query ? `?${req.query}` : '');
  return jsonBody({
    method: req.method,
    url: baseUrl + origin,
    path: req.path,
    args: argsObject(req.query),
    headers: headersObject(req.lines),
    header_lines: headerLines(req.lines),
    origin: req.clientAddress,
    ...bodyFields(req),
  });
}

export function headersBody(req: Pick<InspectedRequest, 'lines'>): Buffer {
  return jsonBody({ headers: headersObject(req.lines), header_lines: headerLines(req.lines) });
}

export function ipBody(req: Pick<InspectedRequest, 'clientAddress'>): Buffer {
  return jsonBody({ origin: req.clientAddress });
}

/** The first User-Agent line's value (any case), or null when there is none. */
export function userAgentBody(req: Pick<InspectedRequest, 'lines'>): Buffer {
  const line = req.lines.find(([name]) => name.toLowerCase() === 'user-agent');
  return jsonBody({ 'user-agent': line ? trimOws(line[1]) : null });
}

/** A head rebuilt from its request line and field lines (`name:value` as given), ending in the blank line. */
export function rebuildHead(requestLine: string, lines: readonly HeaderLine[]): Buffer {
  return Buffer.from(`${requestLine}\r\n${lines.map(([name, value]) => `${name}:${value}\r\n`).join('')}\r\n`, 'latin1');
}

/** Where /dump says how many body bytes arrived (it shows at most INSPECT_BODY_MAX). */
export const BODY_BYTES_HEADER = 'X-Inspection-Body-Bytes';
