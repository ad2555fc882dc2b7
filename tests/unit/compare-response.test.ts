// How the compare reads the bytes one side received: a table of responses,
// well-formed and not, and what a careful client makes of each.
import t from 'tap';
import { parseResponse } from '../../shared/hub/compare/response.js';
import { differences, sideReport, type SideReport } from '../../shared/hub/compare/report.js';
import { COMPARE_LIMITS } from '../../shared/hub/compare/page.js';
import { upstreamFor, type Capture, type WireEnd } from '../../shared/hub/compare/wire.js';

const head = (...lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
const bytes = (text: string) => Buffer.from(text, 'latin1');

t.test('framing, completeness and what lies beyond', async (t) => {
  const cases: [string, string, object][] = [
    ['Content-Length, complete', `${head('HTTP/1.1 200 OK', 'Content-Length: 3')}abc`, { complete: true, excess: 0, framing: { kind: 'content-length', declared: 3 } }],
    ['Content-Length, short', `${head('HTTP/1.1 200 OK', 'Content-Length: 5')}abc`, { complete: false, excess: 0 }],
    ['Content-Length, bytes beyond it', `${head('HTTP/1.1 200 OK', 'Content-Length: 1')}abc`, { complete: true, excess: 2 }],
    ['two Content-Length values', `${head('HTTP/1.1 200 OK', 'Content-Length: 3', 'Content-Length: 6')}abc`, { complete: false, framing: { kind: 'conflicting-length', values: ['3', '6'] } }],
    ['a list of equal values is one length', `${head('HTTP/1.1 200 OK', 'Content-Length: 3, 3')}abc`, { complete: true, framing: { kind: 'content-length', declared: 3 } }],
    ['no length: until the close', `${head('HTTP/1.1 200 OK')}abc`, { complete: false, framing: { kind: 'until-close' } }],
    ['204 has no body', head('HTTP/1.1 204 No Content'), { complete: true, framing: { kind: 'no-body' } }],
    ['chunked, complete', `${head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked')}3\r\nabc\r\n0\r\n\r\n`, { complete: true, excess: 0, framing: { kind: 'chunked', decodedBytes: 3, problem: undefined } }],
    ['chunked, trailers', `${head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked')}3;x=y\r\nabc\r\n0\r\nX-T: 1\r\n\r\n`, { complete: true, framing: { decodedBytes: 3 } }],
    ['chunked, no last chunk', `${head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked')}3\r\nabc\r\n`, { complete: false, framing: { kind: 'chunked', problem: undefined } }],
    ['chunked, a size that is not hex', `${head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked')}zz\r\nabc\r\n0\r\n\r\n`, { complete: false, framing: { problem: /not a hexadecimal size/ } }],
    ['chunked, a size too small', `${head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked')}2\r\nabc\r\n0\r\n\r\n`, { complete: false, framing: { problem: /not followed by CRLF/ } }],
    ['Transfer-Encoding wins over Content-Length', `${head('HTTP/1.1 200 OK', 'Content-Length: 99', 'Transfer-Encoding: chunked')}0\r\n\r\n`, { complete: true, framing: { kind: 'chunked' } }],
  ];
  for (const [name, text, expected] of cases) t.match(parseResponse(bytes(text)), expected, name);
});

t.test('heads as sent: interim heads, odd lines, bytes that are not HTTP', async (t) => {
  const interim = parseResponse(bytes(`${head('HTTP/1.1 103 Early Hints', 'Link: </a>')}${head('HTTP/1.1 200 OK', 'Content-Length: 0')}`));
  t.same(interim.interim.map((h) => h.statusLine), ['HTTP/1.1 103 Early Hints']);
  t.equal(interim.head?.status, 200);
  t.ok(interim.complete);

  const odd = parseResponse(bytes('HTTP/1.1 200 OK\nA: 1\r\nB : 2\r\n folded\r\nno colon\r\nC: x\x01y\r\nContent-Length: 0\r\n\r\n'));
  t.equal(odd.head?.statusLineEnd, 'lf');
  t.match(odd.head?.statusNotes, ['ends with a bare LF, not CRLF']);
  const notes = odd.head?.lines.map((l) => [l.raw, l.notes.join('; ')]);
  t.same(notes, [
    ['A: 1', ''],
    ['B : 2', 'whitespace before the colon (RFC 9112 §5.1: a server must refuse it, a proxy strip it)'],
    [' folded', 'obsolete line folding: a continuation of the line before (RFC 9112 §5.2)'],
    ['no colon', 'no colon: not a header field'],
    ['C: x\x01y', 'control characters in the value'],
    ['Content-Length: 0', ''],
  ]);
  t.match(parseResponse(bytes(head('HTTP/2 200', 'Content-Length: 0'))).head?.statusNotes, [/version "HTTP\/2"/, /no reason phrase/]);
  t.match(parseResponse(bytes(head('http/1.1 200 ok', 'Content-Length: 0'))).head, { status: 200, statusNotes: [/version "http\/1.1"/] }, 'lower case is read, and noted');

  const garbage = parseResponse(Buffer.from([0xdb, 0x66, 0xa1, 0x0b]));
  t.match(garbage, { notHttp: true, head: undefined, complete: false });
  t.equal(garbage.body.length, 4);
  t.match(parseResponse(bytes('HTTP/1.1 200 OK\r\nContent-Le')), { notHttp: false, head: undefined }, 'a head cut short');
  t.match(parseResponse(Buffer.alloc(0)), { notHttp: false, head: undefined, complete: false }, 'nothing at all');
});

/** A side as the wire would have captured it. */
function side(text: string, end: WireEnd = 'close', errorCode?: string): SideReport {
  const capture: Capture = { bytes: bytes(text), end, errorCode, elapsedMs: 3, firstByteMs: 1 };
  return sideReport('chaos', upstreamFor('http://chaos.localhost:8080', '/x', undefined), capture, COMPARE_LIMITS);
}

t.test('how a side ended, in words; the differences between two', async (t) => {
  const honest = `${head('HTTP/1.1 200 OK', 'Content-Type: text/plain', 'Content-Length: 4', 'Date: Mon')}abcd`;
  t.equal(side(honest).end.detail, 'clean close (FIN) after the complete response');
  t.equal(side('').end.detail, 'clean close (FIN) before any byte: an empty reply');
  t.equal(side('', 'reset', 'ECONNRESET').end.detail, 'reset (ECONNRESET) before any byte');
  t.match(side(`${head('HTTP/1.1 200 OK', 'Content-Length: 8')}abcd`, 'reset', 'ECONNRESET').end.detail, 'reset (ECONNRESET) mid-body (Content-Length 8, 4 body bytes received)');
  t.match(side(`${head('HTTP/1.1 200 OK', 'Content-Length: 8')}abcd`, 'timeout').end.detail, /^timeout: no end within 5000 ms, stopped reading after \d+ bytes \(Content-Length 8, 4 body bytes received\)$/);
  t.match(side(honest, 'complete-open').end.detail, /complete by its framing; the connection stayed open/);
  t.equal(side(`${head('HTTP/1.1 200 OK', 'Content-Length: 2')}abcd`).end.detail, 'clean close (FIN) after the complete response and 2 bytes more');

  t.same(differences(side(honest), side(honest.replace('Date: Mon', 'Date: Tue'))), [], 'Date aside, nothing differs');
  const lying = `${head('HTTP/1.1 200 OK', 'Content-Type: text/html', 'Content-Length: 8', 'X-Chaos-Category: payload', 'X-Extra: 1')}abcd`;
  t.same(differences(side(lying), side(honest)).map((d) => d.kind), ['ending', 'headers-one-side', 'header-values', 'header-values']);
  t.same(differences(side(lying), side(honest)).map((d) => d.detail).slice(1), [
    'only chaos sends: X-Extra',
    'Content-Type: chaos "text/html", twin "text/plain"',
    'Content-Length: chaos "8", twin "4"',
  ], 'X-Chaos-* lines are explanations, not differences');
  t.same(differences(side('', 'reset'), side(honest)).map((d) => d.kind), ['status', 'ending', 'body'], 'without a head, no header noise');
});

t.test('what a proxy rewrites is not a difference of the services', async (t) => {
  const body = 'abcd';
  const answer = (status: string, ...lines: string[]) => `${head(status, 'Content-Type: text/plain', 'Content-Length: 4', ...lines)}${body}`;
  // The chaos host's tcp route passes its bytes; HAProxy in http mode answers the compare's close with its own
  // lowercase `connection: close` and passes on the Keep-Alive the twin sent to its keep-alive request.
  const chaos = side(answer('HTTP/1.1 200 OK', 'Connection: close'));
  const twinThroughProxy = side(answer('HTTP/1.1 200 OK', 'keep-alive: timeout=5', 'connection: close'));
  t.same(differences(chaos, twinThroughProxy), [], 'Keep-Alive beside Connection: close, and the case of the names, are no difference');
  t.same(differences(chaos, side(answer('HTTP/1.1 200 OK'))), [], 'a Connection field the other side lacks is no difference when neither keeps the connection open');
  t.same(differences(side(answer('HTTP/1.1 200 OK', 'Proxy-Connection: close')), chaos), [], 'Proxy-Connection is connection management too');

  // /keepalive-lie: promising a persistent connection is what the service said, whatever the proxy did to the twin.
  const lie = side(answer('HTTP/1.1 200 OK', 'Connection: keep-alive', 'Keep-Alive: timeout=60'));
  t.same(differences(lie, twinThroughProxy).map((d) => [d.kind, d.detail]), [
    ['header-values', 'connection: chaos keeps the connection open (Connection: "keep-alive"), twin does not (Connection: "close")'],
  ], 'a promise of keep-alive against a close is reported once, by meaning');
  t.same(differences(side(answer('HTTP/1.1 200 OK', 'Connection: Keep-Alive, Upgrade')), side(answer('HTTP/1.1 200 OK'))).map((d) => d.detail), [
    'connection: chaos keeps the connection open (Connection: "Keep-Alive, Upgrade"), twin does not (no Connection field)',
  ], 'tokens are read case-insensitively in a list');

  t.same(differences(side(answer("HTTP/1.1 418 I'm a teapot")), side(answer("HTTP/1.1 418 I'm a Teapot"))), [], 'the reason phrase compared without case');
  t.same(differences(side(answer('HTTP/1.1 200 OK')), side(answer('HTTP/1.1 200 Fine'))).map((d) => d.detail), [
    'status line: chaos "HTTP/1.1 200 OK", twin "HTTP/1.1 200 Fine"',
  ], 'another phrase is still a difference');
  t.same(differences(side(answer('HTTP/1.1 200 OK')), side(answer('HTTP/1.0 200 OK'))).map((d) => d.kind), ['status'], 'and so is another version');
  t.same(differences(side(answer('HTTP/1.1 200')), side(answer('HTTP/1.1 200 '))).map((d) => d.kind), ['status'], 'and a missing phrase against an empty one');
});
