// RequestParser on its own: bytes in, requests or one rejection out. Every
// case runs three ways (whole, byte by byte, in uneven pieces) and must give
// the same events, so no limit or check depends on how TCP cut the input.
import t from 'tap';
import { DEFAULT_LIMITS, RequestParser, type ParsedRequest, type ParserLimits } from '../../services/chaos/parser.js';
import { FEEDS } from '../helpers/feeds.js';
import { RepeatedHead } from '../../services/chaos/parser-repeat.js';

type Event =
  | { readonly kind: 'request'; readonly request: ParsedRequest }
  | { readonly kind: 'continue' }
  | { readonly kind: 'reject'; readonly status: number; readonly reason: string };

function collect(limits: ParserLimits = DEFAULT_LIMITS): { parser: RequestParser; events: Event[] } {
  const events: Event[] = [];
  const parser = new RequestParser(
    {
      onRequest: (request) => events.push({ kind: 'request', request }),
      onContinue: () => events.push({ kind: 'continue' }),
      onReject: (r) => events.push({ kind: 'reject', status: r.status, reason: r.reason }),
    },
    limits,
  );
  return { parser, events };
}

/** A subtest's `t` (tap's own type is heavy to name). */
type Asserts = Parameters<Parameters<typeof t.test>[0]>[0];


function run(input: string | Buffer, limits?: ParserLimits): Record<keyof typeof FEEDS, Event[]> {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'latin1') : input;
  const out = {} as Record<keyof typeof FEEDS, Event[]>;
  for (const [name, feed] of Object.entries(FEEDS) as [keyof typeof FEEDS, (b: Buffer) => Buffer[]][]) {
    const { parser, events } = collect(limits);
    for (const piece of feed(bytes)) parser.push(piece);
    out[name] = events;
  }
  return out;
}

/** Asserts the three feeds agree and returns the events. */
function events(t: Asserts, input: string | Buffer, limits?: ParserLimits): Event[] {
  const r = run(input, limits);
  const summary = (es: Event[]): unknown[] =>
    es.map((e) => (e.kind === 'request' ? { ...e.request, headers: [...e.request.headers] } : e));
  t.same(summary(r['byte by byte']), summary(r.whole), 'byte-by-byte feed gives the same events');
  t.same(summary(r.pieces), summary(r.whole), 'uneven pieces give the same events');
  return r.whole;
}

function requests(es: Event[]): ParsedRequest[] {
  return es.flatMap((e) => (e.kind === 'request' ? [e.request] : []));
}

function rejection(es: Event[]): { status: number; reason: string } | undefined {
  const r = es.find((e) => e.kind === 'reject');
  return r?.kind === 'reject' ? r : undefined;
}

const H = 'Host: chaos.test\r\n';

t.test('well-formed requests', async (t) => {
  const cases: { name: string; input: string; check: (reqs: ParsedRequest[], t: Asserts) => void }[] = [
    {
      name: 'simple GET',
      input: `GET /bytes?n=4&seed=x HTTP/1.1\r\n${H}Accept: */*\r\n\r\n`,
      check: ([r], t) => {
        t.equal(r?.method, 'GET');
        t.equal(r?.target, '/bytes?n=4&seed=x');
        t.equal(r?.path, '/bytes');
        t.equal(r?.query, 'n=4&seed=x');
        t.equal(r?.version, '1.1');
        t.equal(r?.host, 'chaos.test');
        t.equal(r?.keepAlive, true);
        t.equal(r?.bodyBytes, 0);
        t.equal(r?.headers.get('accept'), '*/*');
      },
    },
    {
      name: 'header names lower-cased, values trimmed, repeats joined',
      input: `GET / HTTP/1.1\r\n${H}X-A:  one \t\r\nx-a: two\r\nACCEPT:\r\n\r\n`,
      check: ([r], t) => {
        t.equal(r?.headers.get('x-a'), 'one, two');
        t.equal(r?.headers.get('accept'), '');
      },
    },
    {
      name: 'obs-text (0x80-0xff) in a value is allowed',
      input: `GET / HTTP/1.1\r\n${H}X-Name: caf\xe9\r\n\r\n`,
      check: ([r], t) => t.equal(r?.headers.get('x-name'), 'caf\xe9'),
    },
    {
      name: 'Connection: close turns keep-alive off',
      input: `GET / HTTP/1.1\r\n${H}Connection: Upgrade, close\r\n\r\n`,
      check: ([r], t) => t.equal(r?.keepAlive, false),
    },
    {
      name: 'HTTP/1.0 closes by default, no Host needed',
      input: 'GET / HTTP/1.0\r\n\r\n',
      check: ([r], t) => {
        t.equal(r?.version, '1.0');
        t.equal(r?.keepAlive, false);
        t.equal(r?.host, undefined);
      },
    },
    {
      name: 'HTTP/1.0 with Connection: keep-alive',
      input: 'GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n',
      check: ([r], t) => t.equal(r?.keepAlive, true),
    },
    {
      name: 'absolute-form: the authority is the host, Host is ignored',
      input: `GET http://Other.Test:8080/slow?ms=1#frag HTTP/1.1\r\n${H}\r\n`,
      check: ([r], t) => {
        t.equal(r?.host, 'Other.Test:8080');
        t.equal(r?.path, '/slow');
        t.equal(r?.query, 'ms=1');
      },
    },
    {
      name: 'absolute-form with no path or only a query',
      input: `GET http://a.test HTTP/1.1\r\n${H}\r\nGET http://a.test?x=1 HTTP/1.1\r\n${H}\r\n`,
      check: ([a, b], t) => {
        t.equal(a?.path, '/');
        t.equal(b?.path, '/');
        t.equal(b?.query, 'x=1');
      },
    },
    {
      name: 'OPTIONS *',
      input: `OPTIONS * HTTP/1.1\r\n${H}\r\n`,
      check: ([r], t) => t.equal(r?.path, '*'),
    },
    {
      name: 'empty Host is allowed (RFC 9112 §3.2)',
      input: 'GET / HTTP/1.1\r\nHost:\r\n\r\n',
      check: ([r], t) => t.equal(r?.host, ''),
    },
    {
      name: 'IPv6 literal Host',
      input: 'GET / HTTP/1.1\r\nHost: [::1]:8081\r\n\r\n',
      check: ([r], t) => t.equal(r?.host, '[::1]:8081'),
    },
    {
      name: 'Content-Length body is read and counted',
      input: `POST /x HTTP/1.1\r\n${H}Content-Length: 5\r\n\r\nhelloGET /next HTTP/1.1\r\n${H}\r\n`,
      check: ([a, b], t) => {
        t.equal(a?.bodyBytes, 5);
        t.equal(b?.path, '/next', 'the body did not leak into the next request');
      },
    },
    {
      name: 'Content-Length with leading zeros',
      input: `POST / HTTP/1.1\r\n${H}Content-Length: 003\r\n\r\nabc`,
      check: ([r], t) => t.equal(r?.bodyBytes, 3),
    },
    {
      name: 'chunked body with extensions and trailers',
      input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: Chunked\r\n\r\n5;a=b\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\nGET /after HTTP/1.1\r\n${H}\r\n`,
      check: ([a, b], t) => {
        t.equal(a?.bodyBytes, 15);
        t.equal(b?.path, '/after');
      },
    },
    {
      name: 'pipelined requests in order, with empty lines between them',
      input: `GET /1 HTTP/1.1\r\n${H}\r\n\r\nGET /2 HTTP/1.1\r\n${H}\r\n\r\n\r\nGET /3 HTTP/1.1\r\n${H}\r\n`,
      check: (reqs, t) => t.same(reqs.map((r) => r.path), ['/1', '/2', '/3']),
    },
    {
      name: 'exactly 100 header fields',
      input: `GET / HTTP/1.1\r\n${H}${Array.from({ length: 99 }, (_, i) => `X-${i}: v\r\n`).join('')}\r\n`,
      check: ([r], t) => t.equal(r?.headers.size, 100),
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const es = events(t, c.input);
      t.equal(rejection(es), undefined, 'not rejected');
      c.check(requests(es), t);
    });
  }
});

t.test('hostile and malformed input is rejected with the exact status', async (t) => {
  const longLine = `GET /${'a'.repeat(8200)} HTTP/1.1\r\n${H}\r\n`;
  const bigHeader = `GET / HTTP/1.1\r\n${H}X-Big: ${'b'.repeat(17_000)}\r\n\r\n`;
  const manyHeaders = `GET / HTTP/1.1\r\n${H}${Array.from({ length: 100 }, (_, i) => `X-${i}: v\r\n`).join('')}\r\n`;
  const cases: { name: string; input: string; status: number; before?: number }[] = [
    { name: 'request line over 8 KB', input: longLine, status: 414 },
    { name: 'request line over 8 KB, head still incomplete', input: `GET /${'a'.repeat(8200)} HTTP/1.1\r\nHost: x`, status: 414 },
    { name: 'request line over 8 KB, no line end yet', input: `GET /${'a'.repeat(8300)}`, status: 414 },
    { name: 'header block over 16 KB', input: bigHeader, status: 431 },
    { name: 'header block over 16 KB, head still incomplete', input: `GET / HTTP/1.1\r\nX-Big: ${'b'.repeat(17_000)}`, status: 431 },
    { name: '101 header fields', input: manyHeaders, status: 431 },
    { name: 'Content-Length with Transfer-Encoding', input: `POST / HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`, status: 400 },
    { name: 'Transfer-Encoding with Content-Length', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n`, status: 400 },
    { name: 'duplicate Content-Length, same value', input: `POST / HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello`, status: 400 },
    { name: 'duplicate Content-Length, different values', input: `POST / HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello`, status: 400 },
    { name: 'Content-Length list in one field', input: `POST / HTTP/1.1\r\n${H}Content-Length: 5, 5\r\n\r\nhello`, status: 400 },
    { name: 'Content-Length -1', input: `POST / HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n`, status: 400 },
    { name: 'Content-Length 1e3', input: `POST / HTTP/1.1\r\n${H}Content-Length: 1e3\r\n\r\n`, status: 400 },
    { name: 'Content-Length " 12abc"', input: `POST / HTTP/1.1\r\n${H}Content-Length:  12abc\r\n\r\n`, status: 400 },
    { name: 'Content-Length +5', input: `POST / HTTP/1.1\r\n${H}Content-Length: +5\r\n\r\n`, status: 400 },
    { name: 'Content-Length 0x10', input: `POST / HTTP/1.1\r\n${H}Content-Length: 0x10\r\n\r\n`, status: 400 },
    { name: 'empty Content-Length', input: `POST / HTTP/1.1\r\n${H}Content-Length:\r\n\r\n`, status: 400 },
    { name: 'Content-Length beyond the body bound', input: `POST / HTTP/1.1\r\n${H}Content-Length: 1048577\r\n\r\n`, status: 413 },
    { name: 'Transfer-Encoding gzip, chunked', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: gzip, chunked\r\n\r\n`, status: 501 },
    { name: 'Transfer-Encoding chunked twice', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n`, status: 501 },
    { name: 'Transfer-Encoding gzip (length unknowable)', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: gzip\r\n\r\n`, status: 400 },
    { name: 'Transfer-Encoding identity', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: identity\r\n\r\n`, status: 400 },
    { name: 'Transfer-Encoding in HTTP/1.0', input: 'POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n', status: 400 },
    { name: 'obs-fold (SP)', input: `GET / HTTP/1.1\r\n${H}X-A: one\r\n two\r\n\r\n`, status: 400 },
    { name: 'obs-fold (HTAB)', input: `GET / HTTP/1.1\r\n${H}X-A: one\r\n\ttwo\r\n\r\n`, status: 400 },
    { name: 'space before colon', input: `GET / HTTP/1.1\r\n${H}X-A : v\r\n\r\n`, status: 400 },
    { name: 'tab before colon', input: `GET / HTTP/1.1\r\n${H}X-A\t: v\r\n\r\n`, status: 400 },
    { name: 'header line without colon', input: `GET / HTTP/1.1\r\n${H}nocolon\r\n\r\n`, status: 400 },
    { name: 'empty header name', input: `GET / HTTP/1.1\r\n${H}: v\r\n\r\n`, status: 400 },
    { name: 'non-token header name', input: `GET / HTTP/1.1\r\n${H}X(A): v\r\n\r\n`, status: 400 },
    { name: 'bare LF line ends', input: 'GET / HTTP/1.1\nHost: chaos.test\n\n', status: 400 },
    { name: 'bare LF after the request line only', input: 'GET / HTTP/1.1\r\nHost: chaos.test\n\r\n', status: 400 },
    { name: 'bare LF, unfinished head (answered without waiting)', input: 'GET / HTTP/1.1\n', status: 400 },
    { name: 'lone LF first', input: '\nGET / HTTP/1.1\r\n\r\n', status: 400 },
    { name: 'bare CR line ends, unfinished head (answered without waiting)', input: 'GET / HTTP/1.1\rHost: chaos.test\r', status: 400 },
    { name: 'bare CR after the request line', input: 'GET / HTTP/1.1\r\nHost: chaos.test\rX-A: b\r\n', status: 400 },
    { name: 'CR CR LF', input: `GET / HTTP/1.1\r\r\n${H}\r\n`, status: 400 },
    { name: 'bare CR inside a header value', input: `GET / HTTP/1.1\r\n${H}X-A: a\rb\r\n\r\n`, status: 400 },
    { name: 'NUL in a header value', input: `GET / HTTP/1.1\r\n${H}X-A: a\x00b\r\n\r\n`, status: 400 },
    { name: 'control byte 0x01 in a header value', input: `GET / HTTP/1.1\r\n${H}X-A: a\x01b\r\n\r\n`, status: 400 },
    { name: 'DEL in a header value', input: `GET / HTTP/1.1\r\n${H}X-A: a\x7fb\r\n\r\n`, status: 400 },
    { name: 'NUL in the target', input: `GET /a\x00b HTTP/1.1\r\n${H}\r\n`, status: 400 },
    { name: 'missing Host on HTTP/1.1', input: 'GET / HTTP/1.1\r\nAccept: */*\r\n\r\n', status: 400 },
    { name: 'two Host fields', input: `GET / HTTP/1.1\r\n${H}${H}\r\n`, status: 400 },
    { name: 'Host with a space', input: 'GET / HTTP/1.1\r\nHost: a b\r\n\r\n', status: 400 },
    { name: 'Host with userinfo', input: 'GET / HTTP/1.1\r\nHost: user@a.test\r\n\r\n', status: 400 },
    { name: 'absolute-form with userinfo', input: `GET http://user@a.test/ HTTP/1.1\r\n${H}\r\n`, status: 400 },
    { name: 'HTTP/2.0 request line', input: `GET / HTTP/2.0\r\n${H}\r\n`, status: 505 },
    { name: 'HTTP/2 preface', input: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', status: 505 },
    { name: 'HTTP/1.2', input: `GET / HTTP/1.2\r\n${H}\r\n`, status: 505 },
    { name: 'HTTP/0.9-style request line', input: 'GET /\r\n\r\n', status: 400 },
    { name: 'lower-case protocol name', input: `GET / http/1.1\r\n${H}\r\n`, status: 400 },
    { name: 'two spaces in the request line', input: `GET  / HTTP/1.1\r\n${H}\r\n`, status: 400 },
    { name: 'trailing space in the request line', input: `GET / HTTP/1.1 \r\n${H}\r\n`, status: 400 },
    { name: 'non-token method', input: `G(T / HTTP/1.1\r\n${H}\r\n`, status: 400 },
    { name: 'scheme-less target', input: `GET chaos.test/ HTTP/1.1\r\n${H}\r\n`, status: 400 },
    { name: 'asterisk target on GET', input: `GET * HTTP/1.1\r\n${H}\r\n`, status: 400 },
    { name: 'unsupported expectation', input: `GET / HTTP/1.1\r\n${H}Expect: teapot\r\n\r\n`, status: 417 },
    { name: 'too many empty lines before a request', input: `${'\r\n'.repeat(9)}GET / HTTP/1.1\r\n${H}\r\n`, status: 400 },
    { name: 'bad chunk size', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nzz\r\n`, status: 400 },
    { name: 'negative chunk size', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n-5\r\n`, status: 400 },
    { name: 'chunk size with a space', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n`, status: 400 },
    { name: 'chunk size over 8 hex digits', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n000000005\r\n`, status: 400 },
    { name: 'chunk data without CRLF', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n`, status: 400 },
    { name: 'chunk data followed by CR only', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\rX0\r\n\r\n`, status: 400 },
    { name: 'bare LF in chunked framing', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n`, status: 400 },
    { name: 'chunk size line too long', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5;${'e'.repeat(1100)}\r\n`, status: 400 },
    { name: 'chunked total beyond the body bound', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n100001\r\n`, status: 413 },
    { name: 'Content-Length in trailers', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n`, status: 400 },
    { name: 'Transfer-Encoding in trailers', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0\r\ntransfer-encoding: chunked\r\n\r\n`, status: 400 },
    { name: 'Host in trailers', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0\r\nHost: other.test\r\n\r\n`, status: 400 },
    { name: 'bare CR in a chunk size line, unfinished (answered without waiting)', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5\rhello`, status: 400 },
    { name: 'invalid trailer field', input: `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n`, status: 400 },
    { name: 'a good request, then garbage', input: `GET /ok HTTP/1.1\r\n${H}\r\nHELLO\r\n\r\n`, status: 400, before: 1 },
  ];
  for (const c of cases) {
    await t.test(`${c.name} → ${c.status}`, async (t) => {
      const es = events(t, c.input);
      t.equal(requests(es).length, c.before ?? 0, 'requests before the rejection');
      t.equal(rejection(es)?.status, c.status, rejection(es)?.reason ?? 'no rejection');
      t.equal(es.filter((e) => e.kind === 'reject').length, 1, 'exactly one rejection');
    });
  }
});

t.test('after a rejection nothing more is parsed', async (t) => {
  const { parser, events } = collect();
  parser.push(Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nX : y\r\n\r\n`, 'latin1'));
  t.equal(parser.dead, true);
  parser.push(Buffer.from(`GET / HTTP/1.1\r\n${H}\r\n`, 'latin1'));
  t.same(events.map((e) => e.kind), ['reject']);
});

t.test('custom limits apply at their exact boundaries', async (t) => {
  const limits: ParserLimits = { maxRequestLine: 40, maxHeaderBytes: 64, maxHeaderCount: 3, maxBodyBytes: 10 };
  const line = (n: number): string => `GET /${'a'.repeat(n - 'GET / HTTP/1.1'.length)} HTTP/1.1`;
  t.equal(line(40).length, 40);
  t.equal(rejection(events(t, `${line(40)}\r\n${H}\r\n`, limits)), undefined, 'a 40-byte request line passes');
  t.equal(rejection(events(t, `${line(41)}\r\n${H}\r\n`, limits))?.status, 414, 'a 41-byte request line is refused');
  t.equal(rejection(events(t, `GET / HTTP/1.1\r\n${H}A: 1\r\nB: 2\r\n\r\n`, limits)), undefined, '3 fields pass');
  t.equal(rejection(events(t, `GET / HTTP/1.1\r\n${H}A: 1\r\nB: 2\r\nC: 3\r\n\r\n`, limits))?.status, 431, '4 fields are refused');
  t.equal(rejection(events(t, `GET / HTTP/1.1\r\n${H}X: ${'v'.repeat(70)}\r\n\r\n`, limits))?.status, 431);
  t.equal(requests(events(t, `POST / HTTP/1.1\r\n${H}Content-Length: 10\r\n\r\n0123456789`, limits))[0]?.bodyBytes, 10);
  t.equal(rejection(events(t, `POST / HTTP/1.1\r\n${H}Content-Length: 11\r\n\r\n`, limits))?.status, 413);
  t.equal(rejection(events(t, `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n5\r\n`, limits))?.status, 413);
});

t.test('Expect: 100-continue', async (t) => {
  await t.test('announced once the head is read and before the body', async (t) => {
    const { parser, events } = collect();
    parser.push(Buffer.from(`POST / HTTP/1.1\r\n${H}Expect: 100-Continue\r\nContent-Length: 3\r\n\r\n`, 'latin1'));
    t.same(events.map((e) => e.kind), ['continue']);
    t.equal(parser.midRequest, true, 'waiting for the body');
    parser.push(Buffer.from('abc', 'latin1'));
    t.same(events.map((e) => e.kind), ['continue', 'request']);
    t.equal(parser.midRequest, false);
  });
  await t.test('for a chunked body too', async (t) => {
    const es = events(t, `POST / HTTP/1.1\r\n${H}Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n`);
    t.same(es.map((e) => e.kind), ['continue', 'request']);
  });
  await t.test('not without a body', async (t) => {
    t.same(events(t, `GET / HTTP/1.1\r\n${H}Expect: 100-continue\r\n\r\n`).map((e) => e.kind), ['request']);
  });
  await t.test('not when the body is refused by its length', async (t) => {
    const es = events(t, `POST / HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Length: 99999999\r\n\r\n`);
    t.same(es.map((e) => (e.kind === 'reject' ? e.status : e.kind)), [413]);
  });
  await t.test('ignored in HTTP/1.0 (RFC 9110 §10.1.1)', async (t) => {
    const es = events(t, 'POST / HTTP/1.0\r\nExpect: whatever\r\nContent-Length: 1\r\n\r\nx');
    t.same(es.map((e) => e.kind), ['request']);
  });
});

t.test('a head that repeats the previous one byte for byte is the same request', async (t) => {
  await t.test('without a body: parsed once, handed on again', async (t) => {
    const get = `GET /status/200?x=1 HTTP/1.1\r\n${H}Accept: */*\r\n\r\n`;
    const rs = requests(events(t, get + get + `GET /other HTTP/1.1\r\n${H}\r\n` + get));
    t.equal(rs.length, 4);
    t.equal(rs[1], rs[0], 'the second is the first, not a copy');
    t.equal(rs[1]?.path, '/status/200');
    t.equal(rs[1]?.query, 'x=1');
    t.equal(rs[1]?.headers.get('accept'), '*/*');
    t.equal(rs[2]?.path, '/other', 'another head is parsed');
    t.not(rs[3], rs[0], 'a head two requests back is parsed again');
    t.same({ ...rs[3], headers: [...(rs[3]?.headers ?? [])] }, { ...rs[0], headers: [...(rs[0]?.headers ?? [])] });
  });
  await t.test('with a body: each parsed, each body consumed', async (t) => {
    const post = `POST /p HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\n`;
    const rs = requests(events(t, `${post}abc${post}def`));
    t.equal(rs.length, 2, 'two requests, the second body not read as a head');
    t.not(rs[1], rs[0]);
    t.equal(rs[1]?.bodyBytes, 3);
  });
  await t.test('a repeated head that the limits refuse is refused again', async (t) => {
    const limits: ParserLimits = { ...DEFAULT_LIMITS, maxHeaderCount: 1 };
    const es = events(t, `GET / HTTP/1.1\r\n${H}A: 1\r\n\r\n`, limits);
    t.equal(rejection(es)?.status, 431);
  });
  await t.test('the repeat is judged on the bytes up to and including the blank line', async (t) => {
    const head = `GET /r HTTP/1.1\r\n${H}X-A: 1`;
    const get = `${head}\r\n\r\n`;
    // The kept head, then more field lines: a new request.
    const more = requests(events(t, `${get}${head}\r\nX-B: 2\r\n\r\n`));
    t.equal(more.length, 2);
    t.not(more[1], more[0], 'a longer head is parsed');
    t.equal(more[1]?.headers.get('x-b'), '2');
    // The kept head, then a bare LF line where the blank line would be: refused, as a first head would be.
    t.equal(rejection(events(t, `${get}${head}\r\nX\n\r\n`))?.status, 400, 'CR LF x LF after the kept head');
    t.equal(rejection(events(t, `${get}${head}\r\n\n\r\n`))?.status, 400, 'CR LF LF after the kept head');
    // The kept head's bytes with one changed, or a longer last value: new requests.
    const other = requests(events(t, `${get}${head.replace('/r', '/s')}\r\n\r\n${head}2\r\n\r\n`));
    t.same(other.map((r) => [r.path, r.headers.get('x-a')]), [['/r', '1'], ['/s', '1'], ['/r', '12']]);
    t.not(other[2], other[0]);
    // After empty lines between the two, still the same request.
    const afterEmpty = requests(events(t, `${get}\r\n\r\n${get}`));
    t.equal(afterEmpty[1], afterEmpty[0], 'empty lines, then the same head');
    // Pipelined behind it: the next request is read from where the repeat ended.
    const piped = requests(events(t, `${get}${get}GET /next HTTP/1.1\r\n${H}\r\n`));
    t.equal(piped[1], piped[0]);
    t.equal(piped[2]?.path, '/next');
    // A bare CR where the blank line would start, and a last byte changed: judged as any head.
    t.equal(rejection(events(t, `${get}${head}\rZ\r\n\r\n`))?.status, 400, 'CR x CR LF after the kept head');
    const last = requests(events(t, `${get}${head.slice(0, -1)}2\r\n\r\n`));
    t.equal(last[1]?.headers.get('x-a'), '2', 'the last byte is compared too');
    const first = requests(events(t, `${get}P${head.slice(1)}\r\n\r\n`));
    t.equal(first[1]?.method, 'PET', 'and the first');
    for (const [name, after] of [['x LF CR LF', 'Z\n\r\n'], ['CR LF CR x', '\r\n\rZ\r\n\r\n']]) {
      const es = events(t, `${get}${head}${after}`);
      t.equal(requests(es).length, 1, `${name} after the kept head is no repeat`);
      t.equal(rejection(es)?.status, 400, `${name} after the kept head is refused`);
    }
  });
  await t.test('RepeatedHead.matchAt reads nothing past the input it is given', async (t) => {
    const kept = new RepeatedHead<string>();
    const head = `GET / HTTP/1.1\r\n${H}X: 1`;
    kept.keep(head, 'request');
    // An owned input buffer may hold stale bytes past its end: here, the rest of the same head and its blank line.
    const buf = Buffer.from(`${head}\r\n\r\n`, 'latin1');
    t.equal(kept.matchAt(buf, 0, buf.length), 'request', 'the whole head and blank line match');
    t.equal(kept.matchedBytes, buf.length, 'and takes the head and its blank line');
    for (const end of [0, 1, head.length, buf.length - 1]) t.equal(kept.matchAt(buf, 0, end), undefined, `not with ${end} of ${buf.length} bytes`);
    const shifted = Buffer.from(`xx${head}\r\n\r\n`, 'latin1');
    t.equal(kept.matchAt(shifted, 2, shifted.length), 'request', 'from where the input starts');
    t.equal(kept.matchAt(shifted, 1, shifted.length), undefined);
  });
  await t.test('a long head is parsed every time (an idle connection keeps at most 2 KiB of its last)', async (t) => {
    const get = `GET / HTTP/1.1\r\n${H}X-Long: ${'x'.repeat(2100)}\r\n\r\n`;
    const rs = requests(events(t, get + get));
    t.equal(rs.length, 2);
    t.not(rs[1], rs[0], 'a request of its own');
    t.equal(rs[1]?.headers.get('x-long')?.length, 2100);
  });
  await t.test('after stop nothing is remembered', async (t) => {
    const { parser, events: es } = collect();
    const get = Buffer.from(`GET / HTTP/1.1\r\n${H}\r\n`, 'latin1');
    parser.push(get);
    parser.stop();
    parser.push(get);
    t.equal(requests(es).length, 1);
  });
});

t.test('midRequest tracks partial input', async (t) => {
  const { parser } = collect();
  t.equal(parser.midRequest, false);
  parser.push(Buffer.from('GET / HT', 'latin1'));
  t.equal(parser.midRequest, true, 'half a request line');
  parser.push(Buffer.from(`TP/1.1\r\n${H}\r\n`, 'latin1'));
  t.equal(parser.midRequest, false, 'complete');
  parser.push(Buffer.from('\r\n', 'latin1'));
  t.equal(parser.midRequest, false, 'an empty line between requests is not a request');
  parser.push(Buffer.from(`POST / HTTP/1.1\r\n${H}Content-Length: 2\r\n\r\nx`, 'latin1'));
  t.equal(parser.midRequest, true, 'inside a body');
  t.equal(parser.buffered, 0, 'body bytes are dropped as they arrive');
});

t.test('empty lines are counted across pushes', async (t) => {
  const { parser, events } = collect();
  for (let i = 0; i < 9; i++) parser.push(Buffer.from('\r\n', 'latin1'));
  t.equal(rejection(events)?.status, 400, 'a trickle of CRLFs cannot go on for ever');
  const fresh = collect();
  for (let i = 0; i < 3; i++) {
    fresh.parser.push(Buffer.from(`\r\n\r\n\r\nGET /${i} HTTP/1.1\r\n${H}\r\n`, 'latin1'));
  }
  t.same(requests(fresh.events).map((r) => r.path), ['/0', '/1', '/2'], 'the count restarts with each request');
});

t.test('pause holds parsing at a request boundary; resume continues in order', async (t) => {
  const { parser, events } = collect();
  let paused = 0;
  const three = `GET /1 HTTP/1.1\r\n${H}\r\nGET /2 HTTP/1.1\r\n${H}\r\nGET /3 HTTP/1.1\r\n${H}\r\n`;
  // Pause from inside the first onRequest, as the server does when its queue is full.
  const p = new RequestParser({
    onRequest: (r) => {
      events.push({ kind: 'request', request: r });
      if (paused++ === 0) p.pause();
    },
    onContinue: () => undefined,
    onReject: (r) => events.push({ kind: 'reject', status: r.status, reason: r.reason }),
  });
  p.push(Buffer.from(three, 'latin1'));
  t.same(requests(events).map((r) => r.path), ['/1']);
  t.equal(p.paused, true);
  t.ok(p.buffered > 0, 'the rest is kept');
  p.push(Buffer.from(`GET /4 HTTP/1.1\r\n${H}\r\n`, 'latin1'));
  t.same(requests(events).map((r) => r.path), ['/1'], 'input while paused is only buffered');
  p.resume();
  t.same(requests(events).map((r) => r.path), ['/1', '/2', '/3', '/4']);
  t.equal(p.buffered, 0);
  t.equal(parser.paused, false, 'an untouched parser is not paused');
});

t.test('resume from inside onRequest does not re-enter the parse loop', async (t) => {
  const paths: string[] = [];
  const p: RequestParser = new RequestParser({
    onRequest: (r) => {
      paths.push(r.path);
      p.pause();
      p.resume();
    },
    onContinue: () => undefined,
    onReject: () => t.fail('no rejection'),
  });
  p.push(Buffer.from(`GET /a HTTP/1.1\r\n${H}\r\nGET /b HTTP/1.1\r\n${H}\r\n`, 'latin1'));
  t.same(paths, ['/a', '/b']);
});

t.test('stop from inside onRequest ends parsing of the same chunk', async (t) => {
  const paths: string[] = [];
  const p: RequestParser = new RequestParser({
    onRequest: (r) => {
      paths.push(r.path);
      p.stop();
    },
    onContinue: () => undefined,
    onReject: () => t.fail('no rejection'),
  });
  p.push(Buffer.from(`GET /a HTTP/1.1\r\n${H}\r\nGET /b HTTP/1.1\r\n${H}\r\n`, 'latin1'));
  t.same(paths, ['/a']);
  t.equal(p.dead, true);
});

t.test('byte-by-byte input of a maximal head stays fast (no quadratic re-copying)', async (t) => {
  const head = Buffer.from(`GET /${'a'.repeat(8000)} HTTP/1.1\r\n${H}${Array.from({ length: 60 }, (_, i) => `X-${i}: ${'v'.repeat(250)}\r\n`).join('')}\r\n`, 'latin1');
  const { parser, events } = collect();
  const started = performance.now();
  for (let i = 0; i < head.length; i++) parser.push(head.subarray(i, i + 1));
  const elapsed = performance.now() - started;
  t.equal(requests(events).length, 1);
  // Generous sanity bound: linear work is a few ms; quadratic copying was far slower.
  t.ok(elapsed < 2000, `parsed ${head.length} single bytes in ${elapsed.toFixed(0)} ms`);
});
