// The parser against a frozen copy of itself (tests/helpers/parser-oracle.ts):
// many generated inputs, valid and malformed, fed both ways and cut in many
// ways, must give the same events (requests field by field, the same
// rejection status and reason, the same capture-hook calls) and leave both
// parsers in the same state. Guards the fast paths against drifting from the
// documented refusals. Deterministic: one seeded generator.
import t from 'tap';
import { DEFAULT_LIMITS, RequestParser, type CaptureHook, type ParsedRequest, type ParserLimits, type RequestCapture } from '../../services/chaos/parser.js';
import { RequestParser as OracleParser, type ParsedRequest as OracleRequest } from '../helpers/parser-oracle.js';
import { FEEDS } from '../helpers/feeds.js';
import { PLAIN_HTTP1 } from '../../shared/pipeline/transport.js';

/** mulberry32: small, seeded, good enough to pick cases. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rand, items: readonly T[]): T => items[int(r, items.length)] as T;
const chance = (r: Rand, p: number): boolean => r() < p;

/** Every latin1 byte, weighted towards the ones parsers care about. */
function randomChar(r: Rand): string {
  if (chance(r, 0.5)) return pick(r, [' ', '\t', '\r', '\n', ':', ',', '[', ']', '/', '?', '#', '\x00', '\x7f', '\x80', '\xa0', '\xff', '"', '@', 'A', 'z', '0', '9', '.', '-', '%']);
  return String.fromCharCode(int(r, 256));
}

function randomString(r: Rand, max: number): string {
  let s = '';
  for (let n = int(r, max + 1); n > 0; n--) s += randomChar(r);
  return s;
}

const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
function randomToken(r: Rand, max: number): string {
  let s = '';
  for (let n = 1 + int(r, max); n > 0; n--) s += pick(r, [...TOKEN_CHARS]);
  return s;
}

// Each list: the usual values first, then the odd ones (picked with `odd`).
const METHODS = [['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'X-CUSTOM'], ['get', 'G@T', 'GE T', '', 'M\x00', 'ÿ', 'CONNECT', "!#$%&'*+-.^_`|~"]] as const;
const TARGETS = [
  ['/', '/status/200', '/bytes?n=1024&mode=wrong-content-type', '/a?b=c#frag', '/a#f?x', '/?', '/#', 'http://chaos.test/x?y', 'HTTP://Chaos.Test:8080', 'https://h', 'http://[::1]:80/p'],
  ['*', 'http://h?q', 'http://user@h/', 'http://[::1', 'http:///x', 'ftp://h/', 'h/x', '', '/\x7f', '/é', '/a b', '/\t', '/%zz', 'http://h:x/', 'http://h:/', 'http://' + 'a'.repeat(70)],
] as const;
const VERSIONS = [['HTTP/1.1', 'HTTP/1.0'], ['HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'HTTP/1.10', 'http/1.1', 'HTTP/1', 'HTTP/11.1', 'HTTP/1.1 ', 'HTTP/x.y', 'HTTP/١.١', 'HTTP/1.1\t', 'HTTPS/1.1', '']] as const;
const SEPARATORS = [[' '], ['  ', '\t', '', ' \t']] as const;
const NAMES = [
  [
    'Host', 'host', 'HOST', 'hOsT', 'Content-Length', 'content-length', 'Transfer-Encoding', 'transfer-encoding', 'Connection', 'connection',
    'Expect', 'Accept', 'accept', 'User-Agent', 'Accept-Encoding', 'Accept-Language', 'Content-Type', 'Authorization', 'Cookie', 'Origin',
    'X-Chaos-Mode', 'x-forwarded-for', 'Trailer', 'Range', 'If-Range', 'Referer', 'Cache-Control', 'Upgrade', 'Te', 'Sec-Fetch-Mode', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  ],
  ['Bad Name', 'Name ', 'Name\t', 'Na\x00me', 'ÿname', '', ' Host', '\tHost', 'Na:me', 'N"ame', 'Ü'],
] as const;
const HOSTS = [['chaos.test', 'chaos.test:8080', 'chaos.test:', '[::1]', '[::1]:80', '', "a!$&'()*+,;=%-~_.b", '127.0.0.1'], ['[::1', '[]', '[zz]', '[::1]x', 'a b', 'user@h', 'h:80:80', 'h:x', 'Ä', '[::1]:', '[a]:8x']] as const;
const CONNECTIONS = [['keep-alive', 'close', 'Close', 'CLOSE', ' close ', 'keep-alive, close', 'closed', 'Keep-Alive', 'upgrade, keep-alive', 'close,', ',close', '\xa0close', 'close\xa0', 'x,\tclose\t,y', 'kee-alive', '', 'x, keep-alive ,y']] as const;
const TRANSFER = [['chunked', 'Chunked', ' chunked '], ['gzip, chunked', 'chunked, gzip', 'gzip', 'identity', 'chunked,', '']] as const;
const LENGTHS = [['0', '5', '00005', '3', '1048576'], ['1048577', '-1', '+5', '5 5', '0x10', '1e3', '9999999999999999', '', '٣']] as const;
const EXPECTS = [['100-continue', '100-Continue'], ['200-ok', '']] as const;

/** How often a part is picked from the odd values: 0 for about half the requests. */
let oddRate = 0;
function part<T>(r: Rand, lists: readonly (readonly T[])[]): T {
  const odd = lists.length > 1 && chance(r, oddRate);
  return pick(r, lists[odd ? 1 : 0] as readonly T[]);
}

function randomValue(r: Rand, name: string): string {
  const lower = name.toLowerCase();
  const ows = (): string => (chance(r, 0.3) ? pick(r, [' ', '\t', '  ', ' \t ', '']) : '');
  let core: string;
  if (chance(r, oddRate / 4)) core = randomString(r, 12);
  else if (lower === 'host') core = part(r, HOSTS);
  else if (lower === 'connection') core = part(r, CONNECTIONS);
  else if (lower === 'transfer-encoding') core = part(r, TRANSFER);
  else if (lower === 'content-length') core = part(r, LENGTHS);
  else if (lower === 'expect') core = part(r, EXPECTS);
  else core = chance(r, 0.5) ? randomToken(r, 20) : pick(r, ['text/html, */*;q=0.8', 'Mozilla/5.0 (X11; Linux x86_64)', 'gzip, deflate, br', 'a\x80\xff', '']);
  return `${ows()}${core}${ows()}`;
}

function chunkedBody(r: Rand): string {
  let body = '';
  for (let n = int(r, 3); n > 0; n--) {
    const data = randomString(r, 6);
    body += `${data.length.toString(16)}${chance(r, 0.1) ? ';ext=1' : ''}\r\n${data}\r\n`;
  }
  body += '0\r\n';
  if (chance(r, 0.2)) body += `${pick(r, ['X-Trailer', 'Host', 'Content-Length', 'Bad Name'])}: v\r\n`;
  return `${body}\r\n`;
}

/** One request: mostly well formed, with one or more parts picked from the odd ones. */
function randomRequest(r: Rand, limits: ParserLimits): string {
  oddRate = chance(r, 0.5) ? 0 : pick(r, [0.02, 0.05, 0.1]);
  let s = '';
  if (chance(r, 0.1)) s += '\r\n'.repeat(int(r, chance(r, oddRate) ? 11 : 4));
  const method = chance(r, 0.05) ? randomToken(r, 10) : part(r, METHODS);
  const target = chance(r, oddRate) ? `/${randomString(r, 10)}` : part(r, TARGETS);
  const version = part(r, VERSIONS);
  if (chance(r, oddRate / 2)) s += `${method}${part(r, SEPARATORS)}${target}`; // no version at all
  else s += `${method}${part(r, SEPARATORS)}${target}${part(r, SEPARATORS)}${version}`;
  if (chance(r, oddRate / 2)) s += 'x'.repeat(Math.max(0, limits.maxRequestLine + int(r, 3) - 1 - s.length));
  s += chance(r, oddRate / 2) ? pick(r, ['\n', '\r', '\r\r\n']) : '\r\n';
  let hasHost = false;
  let body = '';
  const fields = int(r, chance(r, oddRate / 2) ? limits.maxHeaderCount + 3 : 6);
  for (let i = 0; i < fields; i++) {
    const name = chance(r, oddRate / 2) ? randomString(r, 8) : chance(r, 0.3) ? randomToken(r, 12) : part(r, NAMES);
    const value = randomValue(r, name);
    if (name.toLowerCase() === 'host') hasHost = true;
    s += chance(r, oddRate / 2) ? `${name}${value}` : `${name}:${value}`;
    s += chance(r, oddRate / 2) ? pick(r, ['\n', '\r', '\r\r\n', '\n\r']) : '\r\n';
    if (chance(r, oddRate / 2)) s += `${pick(r, [' ', '\t'])}folded${randomString(r, 3)}\r\n`; // obs-fold
    if (name.toLowerCase() === 'content-length' && /^\d{1,3}$/.test(value.trim())) body = 'b'.repeat(Number(value.trim()));
    if (name.toLowerCase() === 'transfer-encoding' && value.trim().toLowerCase() === 'chunked') body = chunkedBody(r);
  }
  if (!hasHost && !chance(r, oddRate)) s += `Host: ${part(r, HOSTS)}\r\n`;
  if (chance(r, oddRate / 2)) s += `X-Big: ${'v'.repeat(limits.maxHeaderBytes + int(r, 5) - 8)}\r\n`;
  s += '\r\n';
  return s + body;
}

/** A few requests back to back, sometimes with a byte flipped, inserted or dropped. */
/**
 * One to three requests, a few bytes sometimes mutated. `repeats`: a third of
 * the time a request is the previous one again, byte for byte (the repeat fast
 * path and, mutated, its edges); only without a capture hook, which the parser
 * asks once for a repeated head (parser-types.ts) and the oracle every time.
 */
function randomInput(r: Rand, limits: ParserLimits, repeats = false): Buffer {
  let s = '';
  let last = '';
  for (let n = 1 + int(r, 3); n > 0; n--) {
    const next = repeats && last !== '' && chance(r, 0.33) ? last : randomRequest(r, limits);
    s += next;
    last = next;
  }
  const bytes = [...Buffer.from(s, 'latin1')];
  for (let n = chance(r, 0.1) ? 1 + int(r, 3) : 0; n > 0 && bytes.length > 0; n--) {
    const at = int(r, bytes.length);
    const kind = int(r, 3);
    const byte = randomChar(r).charCodeAt(0);
    if (kind === 0) bytes[at] = byte;
    else if (kind === 1) bytes.splice(at, 0, byte);
    else bytes.splice(at, 1);
  }
  return Buffer.from(bytes);
}

type Summary = unknown[];

/** Everything observable of a request, Buffers as hex so the comparison is exact. */
function describe(request: ParsedRequest | OracleRequest): unknown {
  const hex = (b: Buffer | undefined): string | undefined => b?.toString('hex');
  return {
    // The transport facts are the seam's (the oracle predates them): the same keys besides, and for input
    // parsed without facts, the plain HTTP/1.1 ones.
    keys: Object.keys(request).filter((key) => key !== 'transport'),
    transport: 'transport' in request ? request.transport : PLAIN_HTTP1,
    method: request.method,
    target: request.target,
    path: request.path,
    query: request.query,
    version: request.version,
    headers: [...request.headers],
    host: request.host,
    keepAlive: request.keepAlive,
    bodyBytes: request.bodyBytes,
    rawHeaders: request.rawHeaders?.map((h) => [...h]),
    rawHead: hex(request.rawHead),
    body: hex(request.body),
    bodyTruncated: request.bodyTruncated,
  };
}

interface Parsers {
  readonly push: (chunk: Buffer) => void;
  readonly state: () => unknown;
}

function make(kind: 'new' | 'oracle', limits: ParserLimits, capture: CaptureHook | undefined, out: Summary): Parsers {
  const hook: CaptureHook | undefined =
    capture === undefined
      ? undefined
      : (method, target) => {
          out.push({ hook: [method, target] });
          return capture(method, target);
        };
  const events = {
    onRequest: (request: ParsedRequest | OracleRequest) => out.push({ request: describe(request) }),
    onContinue: () => out.push({ continue: true }),
    onReject: (rejection: { status: number; reason: string; name: string; message: string }) =>
      out.push({ reject: [rejection.status, rejection.reason, rejection.name, rejection.message] }),
  };
  const parser = kind === 'new' ? new RequestParser(events, limits, { capture: hook }) : new OracleParser(events, limits, { capture: hook });
  return {
    push: (chunk) => {
      try {
        parser.push(chunk);
      } catch (error) {
        out.push({ threw: String(error) });
      }
    },
    state: () => ({ dead: parser.dead, midRequest: parser.midRequest, buffered: parser.buffered, paused: parser.paused }),
  };
}

/** Runs both parsers on the same pieces; returns both transcripts (events, then state after each push). */
function both(pieces: readonly Buffer[], limits: ParserLimits, capture: CaptureHook | undefined): [Summary, Summary] {
  const got: Summary = [];
  const want: Summary = [];
  const p = make('new', limits, capture, got);
  const o = make('oracle', limits, capture, want);
  for (const piece of pieces) {
    // Each parser gets its own copy: a parser may keep a view of a chunk.
    p.push(Buffer.from(piece));
    got.push(p.state());
    o.push(Buffer.from(piece));
    want.push(o.state());
  }
  return [got, want];
}

const SMALL: ParserLimits = { maxRequestLine: 64, maxHeaderBytes: 160, maxHeaderCount: 5, maxBodyBytes: 40 };
const CAPTURES: readonly (CaptureHook | undefined)[] = [
  undefined,
  () => ({ rawHeaders: true }),
  () => ({ body: { max: 3 } }),
  (method: string): RequestCapture | undefined => (method === 'POST' ? { rawHeaders: true, body: { max: 100 } } : undefined),
];

function randomPieces(r: Rand, input: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < input.length; ) {
    const n = 1 + int(r, chance(r, 0.5) ? 4 : 40);
    out.push(input.subarray(at, at + n));
    at += n;
  }
  return out;
}

t.test('generated inputs: the parser answers exactly as its oracle', async (t) => {
  const r = rng(0x15c0ffee);
  const CASES = 6000;
  let mismatches = 0;
  const outcomes = new Map<string, number>();
  for (let i = 0; i < CASES && mismatches < 5; i++) {
    const limits = chance(r, 0.5) ? DEFAULT_LIMITS : SMALL;
    const capture = pick(r, CAPTURES);
    const input = randomInput(r, limits, capture === undefined);
    const feeds: [string, Buffer[]][] = [
      ['whole', FEEDS.whole(input)],
      ['pieces', FEEDS.pieces(input)],
      ['random pieces', randomPieces(r, input)],
    ];
    if (i % 10 === 0) feeds.push(['byte by byte', FEEDS['byte by byte'](input)]);
    for (const [feed, pieces] of feeds) {
      const [got, want] = both(pieces, limits, capture);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        mismatches++;
        t.same(got, want, `case ${i} (${feed}): ${JSON.stringify(input.toString('latin1'))}`);
      }
      if (feed === 'whole') {
        for (const e of want as { reject?: [number, string]; request?: unknown }[]) {
          const key = e.request !== undefined ? 'request' : e.reject !== undefined ? `${e.reject[0]} ${e.reject[1]}` : undefined;
          if (key !== undefined) outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        }
      }
    }
  }
  t.equal(mismatches, 0, `${CASES} generated inputs agree`);
  // The generator must reach the refusals, not only the happy path.
  const reasons = [...outcomes.keys()].map((k) => k.replace(/:.*/, ''));
  for (const reason of [
    'request',
    '400 malformed request line',
    '400 invalid method',
    '400 invalid request target',
    '400 bare LF in request head',
    '400 bare CR in request head',
    '400 obsolete line folding',
    '400 header line without colon',
    '400 whitespace before colon',
    '400 invalid header name',
    '400 control character in header value',
    '400 duplicate Host',
    '400 missing Host',
    '400 invalid Host',
    '400 duplicate Content-Length',
    '400 invalid Content-Length',
    '414 request line too long',
    '431 request header block too large',
    '431 too many header fields',
    '417 unsupported expectation',
    '505 HTTP/2.0 is not supported',
  ]) {
    t.ok(reasons.includes(reason), `the generator reaches "${reason}"`);
  }
  t.comment([...outcomes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join('\n'));
});

t.test('a few inputs split in two at every offset, and in three at many', async (t) => {
  const r = rng(42);
  const samples: Buffer[] = [
    Buffer.from('GET /status/200 HTTP/1.1\r\nHost: chaos.test\r\nConnection: close\r\n\r\n', 'latin1'),
    Buffer.from('\r\n\r\nPOST /anything?x=1 HTTP/1.1\r\nHost: [::1]:80\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.0\r\n\r\n', 'latin1'),
    Buffer.from('PUT * HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n3\r\nabc\r\n0\r\nX: y\r\n\r\n', 'latin1'),
    Buffer.from('GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n', 'latin1'),
    Buffer.from('GET / HTTP/1.1\r\nHost: h\r\r\n\r\n', 'latin1'),
    Buffer.from('GET / HTTP/1.1\r\nX: a\nb\r\n\r\n', 'latin1'),
    Buffer.from('GET http://Chaos.Test:81/p?q#f HTTP/1.1\r\nHost: other\r\nHost: dup\r\n\r\n', 'latin1'),
    Buffer.from(`GET /${'a'.repeat(60)} HTTP/1.1\r\nHost: h\r\n\r\n`, 'latin1'),
    Buffer.from(`GET / HTTP/1.1\r\nHost: h\r\nX: ${'v'.repeat(150)}\r\n\r\n`, 'latin1'),
    ...Array.from({ length: 6 }, () => randomInput(r, SMALL)),
  ];
  // A head repeated: split anywhere, the second is recognised from its bytes or parsed, never half of each (no capture hook: see randomInput).
  const wrk = 'GET /status/200 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n';
  const repeated = [Buffer.from(wrk.repeat(3), 'latin1'), Buffer.from(`${wrk}\r\n${wrk}${wrk.replace('200', '201')}`, 'latin1')];
  let mismatches = 0;
  for (const [n, input] of [...samples, ...repeated].entries()) {
    for (const limits of [DEFAULT_LIMITS, SMALL]) {
      for (const capture of n < samples.length ? CAPTURES : [undefined]) {
        for (let a = 0; a <= input.length; a++) {
          const splits: Buffer[][] = [[input.subarray(0, a), input.subarray(a)]];
          const b = a + int(r, input.length - a + 1);
          splits.push([input.subarray(0, a), input.subarray(a, b), input.subarray(b)]);
          for (const pieces of splits) {
            const [got, want] = both(pieces, limits, capture);
            if (JSON.stringify(got) !== JSON.stringify(want)) {
              mismatches++;
              if (mismatches <= 5) t.same(got, want, `sample ${n} split at ${pieces.map((p) => p.length).join('+')}`);
            }
          }
        }
      }
    }
  }
  t.equal(mismatches, 0, 'every split agrees');
});
