// RequestParser's opt-in capture: raw header lines and a bounded copy of the
// body, asked request by request through the capture hook. As in
// parser.test.ts, every case runs three ways (whole, byte by byte, in uneven
// pieces) and must give the same requests and the same hook calls.
import t from 'tap';
import {
  DEFAULT_LIMITS,
  RequestParser,
  type CaptureHook,
  type ParsedRequest,
  type ParserLimits,
} from '../../services/chaos/parser.js';
import { FEEDS } from '../helpers/feeds.js';

type Event =
  | { readonly kind: 'request'; readonly request: ParsedRequest }
  | { readonly kind: 'continue' }
  | { readonly kind: 'reject'; readonly status: number; readonly reason: string };

interface Outcome {
  readonly events: Event[];
  /** Every call of the hook, as `METHOD target`. */
  readonly asked: string[];
}

/** A subtest's `t` (tap's own type is heavy to name). */
type Asserts = Parameters<Parameters<typeof t.test>[0]>[0];


function parse(pieces: readonly Buffer[], hook: CaptureHook | undefined, limits: ParserLimits): Outcome {
  const events: Event[] = [];
  const asked: string[] = [];
  const capture: CaptureHook | undefined =
    hook === undefined
      ? undefined
      : (method, target) => {
          asked.push(`${method} ${target}`);
          return hook(method, target);
        };
  const parser = new RequestParser(
    {
      onRequest: (request) => events.push({ kind: 'request', request }),
      onContinue: () => events.push({ kind: 'continue' }),
      onReject: (r) => events.push({ kind: 'reject', status: r.status, reason: r.reason }),
    },
    limits,
    { capture },
  );
  for (const piece of pieces) parser.push(piece);
  return { events, asked };
}

/** Comparable form: Buffers as latin1 text, the header map as entries. */
function summary(es: readonly Event[]): unknown[] {
  return es.map((e) => {
    if (e.kind !== 'request') return e;
    const r = e.request;
    return {
      ...r,
      headers: [...r.headers],
      rawHead: r.rawHead?.toString('latin1'),
      body: r.body?.toString('latin1'),
    };
  });
}

/** Parses `input` the three ways, asserts they agree, and returns the whole-input outcome. */
function run(t: Asserts, input: string | Buffer, hook: CaptureHook | undefined, limits: ParserLimits = DEFAULT_LIMITS): Outcome {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'latin1') : input;
  const whole = parse(FEEDS.whole(bytes), hook, limits);
  for (const name of ['byte by byte', 'pieces'] as const) {
    const other = parse(FEEDS[name](bytes), hook, limits);
    t.same(summary(other.events), summary(whole.events), `${name}: the same events`);
    t.same(other.asked, whole.asked, `${name}: the same hook calls`);
  }
  return whole;
}

function requests(o: Outcome): ParsedRequest[] {
  return o.events.flatMap((e) => (e.kind === 'request' ? [e.request] : []));
}

function rejection(o: Outcome): { status: number; reason: string } | undefined {
  const r = o.events.find((e) => e.kind === 'reject');
  return r?.kind === 'reject' ? r : undefined;
}

const H = 'Host: chaos.test\r\n';
const RAW: CaptureHook = () => ({ rawHeaders: true });
const bodyUpTo =
  (max: number): CaptureHook =>
  () => ({ body: { max } });
// `transport`: the connection's facts (the transport seam), on every request.
const PLAIN_KEYS = ['method', 'target', 'path', 'query', 'version', 'headers', 'host', 'keepAlive', 'bodyBytes', 'transport'];

t.test('raw header lines keep order, case, duplicates and the bytes after the colon', async (t) => {
  const head = `GET /inspect HTTP/1.1\r\n${H}X-A:  one \t\r\nx-a: two\r\nACCEPT:\r\nX-Name: caf\xe9\r\nx-A:three\r\n\r\n`;
  const o = run(t, `\r\n${head}`, RAW);
  t.equal(rejection(o), undefined);
  const [r] = requests(o);
  t.same(r?.rawHeaders, [
    ['Host', ' chaos.test'],
    ['X-A', '  one \t'],
    ['x-a', ' two'],
    ['ACCEPT', ''],
    ['X-Name', ' caf\xe9'],
    ['x-A', 'three'],
  ]);
  t.equal(r?.rawHead?.toString('latin1'), head, 'rawHead is the head byte for byte, without the empty line before it');
  t.same(
    r?.rawHeaders?.map(([name, value]) => `${name}:${value}\r\n`).join(''),
    head.slice(head.indexOf('\r\n') + 2, -2),
    'name:value gives each line back',
  );
  t.equal(r?.headers.get('x-a'), 'one, two, three', 'the parsed map is unchanged');
  t.equal(r?.body, undefined, 'no body was asked');
  t.equal(r?.bodyTruncated, undefined);
});

t.test('raw header lines of a request without fields (HTTP/1.0)', async (t) => {
  const [r] = requests(run(t, 'GET / HTTP/1.0\r\n\r\n', RAW));
  t.same(r?.rawHeaders, []);
  t.equal(r?.rawHead?.toString('latin1'), 'GET / HTTP/1.0\r\n\r\n');
});

t.test('body capture', async (t) => {
  const cases: { name: string; input: string; max: number; bodies: { body: string; bytes: number; truncated: boolean }[] }[] = [
    {
      name: 'Content-Length body, all of it',
      input: `POST /echo HTTP/1.1\r\n${H}Content-Length: 11\r\n\r\nhello world`,
      max: 100,
      bodies: [{ body: 'hello world', bytes: 11, truncated: false }],
    },
    {
      name: 'Content-Length body exactly max',
      input: `POST /echo HTTP/1.1\r\n${H}Content-Length: 11\r\n\r\nhello world`,
      max: 11,
      bodies: [{ body: 'hello world', bytes: 11, truncated: false }],
    },
    {
      name: 'Content-Length body over max: truncated, counted in full, the next request intact',
      input: `POST /echo HTTP/1.1\r\n${H}Content-Length: 11\r\n\r\nhello worldPOST /next HTTP/1.1\r\n${H}Content-Length: 2\r\n\r\nok`,
      max: 5,
      bodies: [
        { body: 'hello', bytes: 11, truncated: true },
        { body: 'ok', bytes: 2, truncated: false },
      ],
    },
    {
      name: 'chunked: several chunks, extensions and trailers, de-chunked',
      input: `POST /echo HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n1;x;y="z"\r\n \r\nA\r\n0123456789\r\n0;end\r\nX-Trailer: t\r\nX-More: u\r\n\r\n`,
      max: 100,
      bodies: [{ body: 'hello 0123456789', bytes: 16, truncated: false }],
    },
    {
      name: 'chunked over max: cut inside a chunk',
      input: `POST /echo HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\n\r\nGET /after HTTP/1.1\r\n${H}\r\n`,
      max: 7,
      bodies: [
        { body: 'hello 0', bytes: 16, truncated: true },
        { body: '', bytes: 0, truncated: false },
      ],
    },
    {
      name: 'max 0 keeps nothing and still counts',
      input: `POST /echo HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\nabcPOST /c HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\nGET /none HTTP/1.1\r\n${H}\r\n`,
      max: 0,
      bodies: [
        { body: '', bytes: 3, truncated: true },
        { body: '', bytes: 2, truncated: true },
        { body: '', bytes: 0, truncated: false },
      ],
    },
    {
      name: 'pipelined requests each keep their own body',
      input:
        `POST /1 HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\naaa` +
        `POST /2 HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n2\r\nbb\r\n2\r\nbb\r\n0\r\n\r\n` +
        `GET /3 HTTP/1.1\r\n${H}\r\n` +
        `POST /4 HTTP/1.1\r\n${H}Content-Length: 2\r\n\r\ncc`,
      max: 64,
      bodies: [
        { body: 'aaa', bytes: 3, truncated: false },
        { body: 'bbbb', bytes: 4, truncated: false },
        { body: '', bytes: 0, truncated: false },
        { body: 'cc', bytes: 2, truncated: false },
      ],
    },
    {
      name: 'empty chunked body',
      input: `POST /echo HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      max: 8,
      bodies: [{ body: '', bytes: 0, truncated: false }],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const o = run(t, c.input, bodyUpTo(c.max));
      t.equal(rejection(o), undefined, 'not rejected');
      t.same(
        requests(o).map((r) => ({ body: r.body?.toString('latin1'), bytes: r.bodyBytes, truncated: r.bodyTruncated })),
        c.bodies,
      );
      for (const r of requests(o)) t.equal(r.rawHeaders, undefined, 'no raw headers were asked');
    });
  }
});

t.test('binary body bytes (CR, LF, NUL, 0x80-0xff) are kept exactly, byte by byte', async (t) => {
  const payload = Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 7) % 256));
  const chunked = Buffer.concat([
    Buffer.from(`POST /c HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n100\r\n`, 'latin1'),
    payload.subarray(0, 256),
    Buffer.from('\r\n158\r\n', 'latin1'),
    payload.subarray(256),
    Buffer.from('\r\n0\r\n\r\n', 'latin1'),
  ]);
  const withLength = Buffer.concat([Buffer.from(`POST /l HTTP/1.1\r\n${H}Content-Length: 600\r\n\r\n`, 'latin1'), payload]);
  const [c, l] = requests(run(t, Buffer.concat([chunked, withLength]), bodyUpTo(1000)));
  t.ok(c?.body?.equals(payload), 'chunked body kept exactly');
  t.ok(l?.body?.equals(payload), 'Content-Length body kept exactly');
  const [cut] = requests(run(t, chunked, bodyUpTo(300)));
  t.ok(cut?.body?.equals(payload.subarray(0, 300)), 'a cut across chunks keeps the first 300 bytes');
  t.equal(cut?.bodyBytes, 600);
});

t.test('the kept body is a copy, not a view of the input', async (t) => {
  const input = Buffer.from(`POST /echo HTTP/1.1\r\n${H}Content-Length: 5\r\n\r\nhello`, 'latin1');
  const [r] = requests(run(t, input, () => ({ rawHeaders: true, body: { max: 5 } })));
  input.fill(0x7a);
  t.equal(r?.body?.toString('latin1'), 'hello');
  t.equal(r?.rawHead?.toString('latin1'), `POST /echo HTTP/1.1\r\n${H}Content-Length: 5\r\n\r\n`);
});

t.test('room for a kept body grows with what arrives, never past the body', async (t) => {
  const body = Buffer.alloc(600, 0x61);
  const input = Buffer.concat([Buffer.from(`POST / HTTP/1.1\r\n${H}Content-Length: 600\r\n\r\n`, 'latin1'), body]);
  const [r] = requests(parse(FEEDS['byte by byte'](input), bodyUpTo(1000), DEFAULT_LIMITS));
  t.ok(r?.body?.equals(body));
  // Buffer.alloc does not pool, so the backing store is what the parser allocated.
  t.equal(r?.body?.buffer.byteLength, 600, 'doubling stopped at the Content-Length');
});

t.test('without a capture the new fields are absent', async (t) => {
  const input = `POST /a HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\nabcGET /b HTTP/1.1\r\n${H}\r\n`;
  for (const [name, hook] of [
    ['no hook', undefined],
    ['the hook answers undefined', () => undefined],
  ] as const) {
    const o = run(t, input, hook);
    t.equal(requests(o).length, 2, name);
    for (const r of requests(o)) t.same(Object.keys(r), PLAIN_KEYS, `${name}: ${r.path} has only the plain fields`);
    t.equal(requests(o)[0]?.bodyBytes, 3, `${name}: the body is still counted`);
  }
});

t.test('the hook is asked once per request and may answer differently each time', async (t) => {
  const hook: CaptureHook = (_method, target) => {
    if (target === '/raw') return { rawHeaders: true };
    if (target === '/body') return { body: { max: 4 } };
    if (target === '/both') return { rawHeaders: true, body: { max: 2 } };
    return undefined;
  };
  const post = (path: string): string => `POST ${path} HTTP/1.1\r\n${H}X-Path: ${path}\r\nContent-Length: 6\r\n\r\n${path.padEnd(6, '.')}`;
  const o = run(t, ['/raw', '/body', '/none', '/both', '/body'].map(post).join(''), hook);
  t.same(o.asked, ['POST /raw', 'POST /body', 'POST /none', 'POST /both', 'POST /body']);
  const [raw, body, none, both, body2] = requests(o);
  t.same(raw?.rawHeaders, [['Host', ' chaos.test'], ['X-Path', ' /raw'], ['Content-Length', ' 6']]);
  t.equal(raw?.body, undefined);
  t.equal(body?.rawHeaders, undefined);
  t.equal(body?.rawHead, undefined);
  t.equal(body?.body?.toString('latin1'), '/bod');
  t.equal(body?.bodyTruncated, true);
  t.same(Object.keys(none ?? {}), PLAIN_KEYS);
  t.same(both?.rawHeaders?.[1], ['X-Path', ' /both']);
  t.equal(both?.body?.toString('latin1'), '/b');
  t.equal(both?.bodyBytes, 6);
  t.equal(body2?.body?.toString('latin1'), '/bod', 'a later request keeps its own body');
  t.equal(body2?.rawHeaders, undefined, 'and nothing of an earlier capture');
});

t.test('a repeated head asks again only when the last answer captured', async (t) => {
  const hook: CaptureHook = (_method, target) => (target === '/raw' ? { rawHeaders: true } : undefined);
  const get = (path: string): string => `GET ${path} HTTP/1.1\r\n${H}\r\n`;
  const o = run(t, [get('/raw'), get('/raw'), get('/none'), get('/none'), get('/raw')].join(''), hook);
  // The second /none repeats a head whose answer was undefined: the same request, not asked again.
  t.same(o.asked, ['GET /raw', 'GET /raw', 'GET /none', 'GET /raw']);
  const [raw1, raw2, none1, none2, raw3] = requests(o);
  for (const [name, r] of [['first', raw1], ['repeated', raw2], ['after another', raw3]] as const) {
    t.same(r?.rawHeaders, [['Host', ' chaos.test']], `${name} /raw keeps its raw headers`);
  }
  t.not(raw2, raw1, 'a captured request is parsed anew');
  t.equal(none2, none1, 'a plain one repeated is the same request');
});

t.test('the hook sees a request that its fields then get refused', async (t) => {
  const o = run(t, `GET /x HTTP/1.1\r\n${H}Bad Name: v\r\n\r\n`, RAW);
  t.same(o.asked, ['GET /x']);
  t.equal(rejection(o)?.status, 400);
  t.equal(requests(o).length, 0);
});

t.test('capture changes no limit', async (t) => {
  const limits: ParserLimits = { ...DEFAULT_LIMITS, maxBodyBytes: 10 };
  const both: CaptureHook = () => ({ rawHeaders: true, body: { max: 1000 } });
  t.equal(rejection(run(t, `POST / HTTP/1.1\r\n${H}Content-Length: 11\r\n\r\n`, both, limits))?.status, 413);
  t.equal(rejection(run(t, `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n5\r\n`, both, limits))?.status, 413);
  const [r] = requests(run(t, `POST / HTTP/1.1\r\n${H}Content-Length: 10\r\n\r\n0123456789`, both, limits));
  t.equal(r?.body?.toString('latin1'), '0123456789', 'a body at the limit is kept whole');
});

t.test('a negative or fractional max is taken as a whole number of bytes, at least 0', async (t) => {
  const input = `POST / HTTP/1.1\r\n${H}Content-Length: 5\r\n\r\nhello`;
  t.equal(requests(run(t, input, bodyUpTo(-3)))[0]?.body?.length, 0);
  t.equal(requests(run(t, input, bodyUpTo(Number.NaN)))[0]?.body?.length, 0);
  t.equal(requests(run(t, input, bodyUpTo(2.9)))[0]?.body?.toString('latin1'), 'he');
});

t.test('Expect: 100-continue still announced with a capture', async (t) => {
  const o = run(t, `POST / HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Length: 2\r\n\r\nhi`, bodyUpTo(8));
  t.same(o.events.map((e) => e.kind), ['continue', 'request']);
  t.equal(requests(o)[0]?.body?.toString('latin1'), 'hi');
});
