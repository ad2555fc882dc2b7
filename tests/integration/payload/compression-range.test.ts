// /compression and /range on the wire (payload category): the chaos host
// read on raw sockets, byte for byte, beside the control twins (/etag is in
// headers.test.ts). The
// /range resource is modelled here independently of the implementation, and
// one case list runs against the control twin and every chaos mode.
import { execFile } from 'node:child_process';
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib';
import t from 'tap';
import { exchange, expectChaosLines, realFailure, type Assert, type Exchange } from '../../helpers/replies.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const chaos = (await startChaos(t)).port;
const control = (await startHttp(t, 'control')).port;


function curl(args: readonly string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-s', '--max-time', '5', ...args], { encoding: 'buffer' }, (error, stdout, stderr) => {
      const code = error ? Number((error as NodeJS.ErrnoException & { code?: unknown }).code ?? -1) : 0;
      resolve({ code, stdout, stderr: stderr.toString() });
    });
  });
}


const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);


// ---------------------------------------------------------------------------
// /compression

/** The plain text, as the control twin serves it without any coding. */
const plain = (await exchange(control, '/compression')).body;

t.test('control /compression without Accept-Encoding: identity, Vary, the plain text', async (t) => {
  t.ok(plain.toString('utf8').startsWith('Chaos Endpoint Service: the /compression resource.\n'));
  t.ok(/^[\x0a\x20-\x7e]+$/.test(plain.toString('latin1')), 'plain ASCII text');
  t.equal(plain.length, 983, 'the documented length');
  t.equal(plain.toString().match(/^line \d\d: the quick brown fox jumps over the lazy dog$/gm)?.length, 16);
  const { res } = await exchange(control, '/compression');
  t.equal(res.status, 200);
  t.same(res.headers('Content-Encoding'), [], 'no Content-Encoding for identity');
  t.same(res.headers('Vary'), ['Accept-Encoding']);
  t.equal(res.header('Content-Type'), 'text/plain; charset=utf-8');
  t.equal(res.header('X-Chaos-Origin'), 'control');
  t.equal(res.header('X-Chaos-Counterpart'), 'http://chaos.test:8080/compression');
});

t.test('chaos /compression: each mode is exactly its lie', async (t) => {
  const cases = [
    { query: '', mode: 'gzip-header-plain-body', encoding: ['gzip'], gzipped: false },
    { query: '?mode=gzip-header-plain-body', mode: 'gzip-header-plain-body', encoding: ['gzip'], gzipped: false },
    { query: '?mode=gzip-body-no-header', mode: 'gzip-body-no-header', encoding: [], gzipped: true },
    { query: '?mode=wrong-encoding-name', mode: 'wrong-encoding-name', encoding: ['superzip'], gzipped: true },
    { query: '?mode=chained-claim', mode: 'chained-claim', encoding: ['gzip, br'], gzipped: false },
  ];
  for (const c of cases) {
    t.test(c.mode + (c.query === '' ? ' (default)' : ''), async (t) => {
      // Accept-Encoding is not consulted: the lie is the same whatever the client asks.
      for (const ae of [undefined, 'identity', 'gzip, br']) {
        const { res, body } = await exchange(chaos, `/compression${c.query}`, ae === undefined ? {} : { 'Accept-Encoding': ae });
        t.equal(res.status, 200);
        expectChaosLines(t, res, 'payload', '/compression', 'X-Chaos-Compression-Mode', c.mode);
        t.same(res.headers('Content-Encoding'), c.encoding, `Content-Encoding lines (Accept-Encoding ${ae ?? 'absent'})`);
        t.same(res.headers('X-Chaos-Body-Encoding'), [c.gzipped ? 'gzip' : 'identity']);
        t.same(res.headers('Vary'), [], 'no negotiation, no Vary');
        t.equal(res.header('Content-Type'), 'text/plain; charset=utf-8');
        t.equal(Number(res.header('Content-Length')), body.length);
        if (c.gzipped) {
          t.same(body.subarray(0, 2), GZIP_MAGIC, 'really gzip: magic bytes 1f 8b');
          t.same(gunzipSync(body), plain, 'gunzips to the plain text');
        } else {
          t.same(body, plain, 'the body is the plain text');
          t.notSame(body.subarray(0, 2), GZIP_MAGIC);
          t.throws(() => gunzipSync(body), 'not gzip');
        }
      }
    });
  }
});

t.test('chaos /compression: HEAD sends the head only', async (t) => {
  const { res, body } = await exchange(chaos, '/compression?mode=gzip-body-no-header', {}, 'HEAD');
  t.equal(res.status, 200);
  t.equal(body.length, 0);
  t.ok(Number(res.header('Content-Length')) > 0 && Number(res.header('Content-Length')) < plain.length, 'the gzip length');
});

t.test('chaos /compression: unknown mode is a real 400', async (t) => {
  realFailure(t, await exchange(chaos, '/compression?mode=zip'), 'mode');
});

t.test('control /compression negotiates from Accept-Encoding (q-values honoured)', async (t) => {
  const cases: [string, string][] = [
    ['gzip', 'gzip'],
    ['deflate', 'deflate'],
    ['br', 'br'],
    ['GZip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip;q=1.0, br;q=0.5', 'gzip'],
    ['br;q=0, gzip;q=0.2, deflate;q=0.1', 'gzip'],
    ['deflate;q=0.9, gzip;q=0.8', 'deflate'],
    ['identity', 'identity'],
    ['gzip;q=0.5, identity', 'identity'],
    ['*', 'br'],
    ['*;q=0.3, br;q=0', 'gzip'],
    ['identity;q=0, *;q=0', 'identity'],
    ['gzip;q=0, br;q=0, deflate;q=0', 'identity'],
    ['compress, zstd', 'zstd'],
    ['gzip;q=abc, deflate', 'deflate'],
    ['', 'identity'],
  ];
  for (const [acceptEncoding, coding] of cases) {
    const { res, body } = await exchange(control, '/compression', { 'Accept-Encoding': acceptEncoding });
    const label = `Accept-Encoding: ${JSON.stringify(acceptEncoding)} → ${coding}`;
    t.equal(res.status, 200, label);
    t.same(res.headers('Content-Encoding'), coding === 'identity' ? [] : [coding], label);
    t.same(res.headers('Vary'), ['Accept-Encoding'], `${label}: Vary`);
    const decoded =
      coding === 'gzip' ? gunzipSync(body) : coding === 'deflate' ? inflateSync(body) : coding === 'br' ? brotliDecompressSync(body) : coding === 'zstd' ? zstdDecompressSync(body) : body;
    t.same(decoded, plain, `${label}: decodes to the plain text`);
    if (coding === 'gzip') t.same(body.subarray(0, 2), GZIP_MAGIC);
  }
});

t.test('control /compression works through a real client (fetch decodes it)', async (t) => {
  const response = await fetch(`http://127.0.0.1:${control}/compression`, { headers: { 'Accept-Encoding': 'gzip' } });
  t.equal(response.headers.get('content-encoding'), 'gzip');
  t.equal(await response.text(), plain.toString('utf8'));
});

t.test('curl sees the compression lies', async (t) => {
  const base = `http://127.0.0.1:${chaos}/compression`;
  for (const mode of ['gzip-header-plain-body', 'wrong-encoding-name', 'chained-claim']) {
    const r = await curl(['--compressed', `${base}?mode=${mode}`]);
    t.equal(r.code, 61, `curl --compressed on ${mode}: error 61 (bad content encoding)`);
  }
  const hidden = await curl([`${base}?mode=gzip-body-no-header`]);
  t.equal(hidden.code, 0);
  t.same(hidden.stdout.subarray(0, 2), GZIP_MAGIC, 'without Content-Encoding curl hands over gzip bytes as text');
  const twin = await curl(['--compressed', `http://127.0.0.1:${control}/compression`]);
  t.equal(twin.code, 0, 'the control twin decodes cleanly');
  t.same(twin.stdout, plain);
});

// ---------------------------------------------------------------------------
// /range

/** The resource, modelled independently: 400 records of the record's offset in 9 digits and LF. */
const RESOURCE = Buffer.from(
  Array.from({ length: 400 }, (_, i) => `${String(i * 10).padStart(9, '0')}\n`).join(''),
  'latin1',
);
const SIZE = 4000;
const BOUNDARY = 'chaos-byteranges-7f3a91c2';
type Part = readonly [number, number];

/** Bytes [a, b] read `offset` further on, wrapping at the end. */
function bytesAt([a, b]: Part, offset = 0): Buffer {
  const out = Buffer.alloc(b - a + 1);
  for (let i = 0; i < out.length; i++) out[i] = RESOURCE[(a + offset + i) % SIZE] as number;
  return out;
}

/** Parses multipart/byteranges from the raw body: each part's Content-Range and bytes, in order. */
function multipartParts(body: Buffer): { range: string; type: string | undefined; data: Buffer }[] {
  const text = body.toString('latin1');
  const delimiter = `--${BOUNDARY}`;
  if (!text.startsWith(`${delimiter}\r\n`)) throw new Error('multipart body does not open with the boundary');
  if (!text.endsWith(`\r\n${delimiter}--\r\n`)) throw new Error('multipart body does not close with the final boundary');
  const inner = text.slice(delimiter.length + 2, text.length - (delimiter.length + 6));
  return inner.split(`\r\n${delimiter}\r\n`).map((part) => {
    const split = part.indexOf('\r\n\r\n');
    const fields = part.slice(0, split).split('\r\n');
    const field = (name: string): string | undefined =>
      fields.find((f) => f.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim();
    return { range: field('Content-Range') ?? '', type: field('Content-Type'), data: Buffer.from(part.slice(split + 4), 'latin1') };
  });
}

type Outcome = { status: 200 } | { status: 206; parts: Part[] } | { status: 416 };
const FULL: Outcome = { status: 200 };
const UNSATISFIABLE: Outcome = { status: 416 };
const partial = (...parts: Part[]): Outcome => ({ status: 206, parts });

type IfRange = 'match' | 'mismatch' | 'weak' | 'date';

interface RangeCase {
  readonly name: string;
  readonly range?: string;
  readonly ifRange?: IfRange;
  /** What RFC 9110 (the control twin) answers. */
  readonly control: Outcome;
  /** stale-if-range, when it differs: the answer as if If-Range were absent. */
  readonly stale?: Outcome;
  /** suffix-confusion, when it differs. */
  readonly suffix?: Outcome;
}

const RANGE_CASES: readonly RangeCase[] = [
  { name: 'no Range', control: FULL },
  { name: 'first 100 bytes', range: 'bytes=0-99', control: partial([0, 99]) },
  { name: 'open end', range: 'bytes=100-', control: partial([100, 3999]) },
  { name: 'last-pos past the end', range: 'bytes=3990-5000', control: partial([3990, 3999]) },
  { name: 'suffix', range: 'bytes=-100', control: partial([3900, 3999]), suffix: partial([0, 99]) },
  { name: 'suffix longer than the resource', range: 'bytes=-5000', control: partial([0, 3999]) },
  { name: 'unit is case-insensitive', range: 'BYTES=10-19', control: partial([10, 19]) },
  { name: 'two ranges, ascending', range: 'bytes=0-99,200-299', control: partial([0, 99], [200, 299]) },
  { name: 'two ranges, request order kept', range: 'bytes=200-299, 0-99', control: partial([200, 299], [0, 99]) },
  { name: 'suffix and prefix', range: 'bytes=-100,0-9', control: partial([3900, 3999], [0, 9]), suffix: partial([0, 99]) },
  { name: 'overlapping ranges coalesce', range: 'bytes=0-99,50-149', control: partial([0, 149]) },
  { name: 'adjacent ranges coalesce', range: 'bytes=0-99,100-199', control: partial([0, 199]) },
  { name: 'empty list elements allowed', range: 'bytes=0-9, ,20-29', control: partial([0, 9], [20, 29]) },
  { name: 'huge last-pos', range: 'bytes=0-99999999999999999999999', control: partial([0, 3999]) },
  { name: 'huge first-pos', range: 'bytes=99999999999999999999999-', control: UNSATISFIABLE },
  { name: 'unsatisfiable range dropped', range: 'bytes=0-99,5000-', control: partial([0, 99]) },
  { name: 'first-pos at the end', range: 'bytes=4000-', control: UNSATISFIABLE },
  { name: 'zero suffix', range: 'bytes=-0', control: UNSATISFIABLE },
  { name: 'all unsatisfiable', range: 'bytes=4000-4100,5000-', control: UNSATISFIABLE },
  { name: 'malformed: not a number', range: 'bytes=abc', control: FULL },
  { name: 'malformed: last before first', range: 'bytes=100-50', control: FULL },
  { name: 'malformed: other unit', range: 'items=0-99', control: FULL },
  { name: 'malformed: no ranges', range: 'bytes=', control: FULL },
  { name: 'malformed: no =', range: 'bytes 0-99', control: FULL },
  { name: 'too many ranges (17) ignored', range: `bytes=${Array.from({ length: 17 }, (_, i) => `${i * 100}-${i * 100 + 9}`).join(',')}`, control: FULL },
  { name: 'If-Range matches', range: 'bytes=0-99', ifRange: 'match', control: partial([0, 99]) },
  { name: 'If-Range mismatch', range: 'bytes=0-99', ifRange: 'mismatch', control: FULL, stale: partial([0, 99]) },
  { name: 'If-Range weak tag', range: 'bytes=0-99', ifRange: 'weak', control: FULL, stale: partial([0, 99]) },
  { name: 'If-Range date', range: 'bytes=0-99', ifRange: 'date', control: FULL, stale: partial([0, 99]) },
  { name: 'If-Range mismatch, suffix', range: 'bytes=-10', ifRange: 'mismatch', control: FULL, stale: partial([3990, 3999]) },
  { name: 'If-Range without Range', ifRange: 'mismatch', control: FULL },
];

const rangeTwin = await exchange(control, '/range');
const rangeTag = rangeTwin.res.header('ETag') as string;

function rangeHeaders(c: RangeCase): Record<string, string> {
  const headers: Record<string, string> = {};
  if (c.range !== undefined) headers['Range'] = c.range;
  const ifRange = { match: rangeTag, mismatch: '"0123456789abcdef"', weak: `W/${rangeTag}`, date: 'Mon, 01 Jan 2024 00:00:00 GMT' };
  if (c.ifRange) headers['If-Range'] = ifRange[c.ifRange];
  return headers;
}

function assertOutcome(t: Assert, label: string, ex: Exchange, expected: Outcome, offset = 0): void {
  const { res, body } = ex;
  t.equal(res.status, expected.status, `${label}: status`);
  t.same(res.headers('Accept-Ranges'), ['bytes'], `${label}: Accept-Ranges`);
  t.same(res.headers('ETag'), [rangeTag], `${label}: the resource's ETag`);
  if (expected.status === 200) {
    t.same(res.headers('Content-Range'), [], `${label}: no Content-Range`);
    t.equal(res.header('Content-Type'), 'text/plain; charset=utf-8', `${label}: Content-Type`);
    t.same(body, RESOURCE, `${label}: the full resource`);
  } else if (expected.status === 416) {
    t.same(res.headers('Content-Range'), [`bytes */${SIZE}`], `${label}: Content-Range bytes */size`);
  } else if (expected.parts.length === 1) {
    const part = expected.parts[0] as Part;
    t.same(res.headers('Content-Range'), [`bytes ${part[0]}-${part[1]}/${SIZE}`], `${label}: Content-Range`);
    t.equal(res.header('Content-Type'), 'text/plain; charset=utf-8', `${label}: Content-Type`);
    t.same(body, bytesAt(part, offset), `${label}: bytes ${part[0] + offset}..${part[1] + offset} (mod ${SIZE})`);
  } else {
    t.equal(res.header('Content-Type'), `multipart/byteranges; boundary=${BOUNDARY}`, `${label}: multipart type`);
    t.same(res.headers('Content-Range'), [], `${label}: no top-level Content-Range`);
    const parts = multipartParts(body);
    t.same(
      parts.map((p) => p.range),
      expected.parts.map(([a, b]) => `bytes ${a}-${b}/${SIZE}`),
      `${label}: part order and Content-Range values`,
    );
    expected.parts.forEach((part, i) => {
      t.same(parts[i]?.data, bytesAt(part, offset), `${label}: part ${i} bytes`);
      t.equal(parts[i]?.type, 'text/plain; charset=utf-8', `${label}: part ${i} Content-Type`);
    });
  }
}

t.test('control /range: the resource and its validator', async (t) => {
  t.equal(rangeTwin.res.status, 200);
  t.equal(rangeTag, '"fe1f0b2fff98d475"', 'the documented ETag');
  t.same(rangeTwin.body, RESOURCE, 'the documented 4000-byte resource');
  t.equal(rangeTwin.res.header('X-Chaos-Counterpart'), 'http://chaos.test:8080/range');
});

// One case list, every host and mode: each chaos mode is the control answer with exactly one departure.
const TARGETS: { name: string; port: number; query: string; expect(c: RangeCase): Outcome; offset?: number }[] = [
  { name: 'control', port: control, query: '', expect: (c) => c.control },
  { name: 'chaos accepts-range-lies (default)', port: chaos, query: '', expect: (c) => c.control, offset: 500 },
  { name: 'chaos accepts-range-lies', port: chaos, query: '?mode=accepts-range-lies', expect: (c) => c.control, offset: 500 },
  { name: 'chaos ignores-range', port: chaos, query: '?mode=ignores-range', expect: () => FULL },
  { name: 'chaos stale-if-range', port: chaos, query: '?mode=stale-if-range', expect: (c) => c.stale ?? c.control },
  { name: 'chaos suffix-confusion', port: chaos, query: '?mode=suffix-confusion', expect: (c) => c.suffix ?? c.control },
];

for (const target of TARGETS) {
  t.test(`/range case list on ${target.name}`, async (t) => {
    const mode = /mode=([a-z-]+)/.exec(target.query)?.[1] ?? 'accepts-range-lies';
    for (const c of RANGE_CASES) {
      const ex = await exchange(target.port, `/range${target.query}`, rangeHeaders(c));
      assertOutcome(t, c.name, ex, target.expect(c), target.offset);
      if (target.port === chaos) expectChaosLines(t, ex.res, 'payload', '/range', 'X-Chaos-Range-Mode', mode);
      else t.equal(ex.res.header('X-Chaos-Origin'), 'control');
    }
  });
}

t.test('chaos /range bad-multipart: real multipart/byteranges, parts running backwards', async (t) => {
  const cases: [string, Record<string, string>, Part[]][] = [
    ['no Range: the fixed pair', {}, [[200, 299], [0, 99]]],
    ['the spec example', { Range: 'bytes=0-99,200-299' }, [[200, 299], [0, 99]]],
    ['three ranges, descending', { Range: 'bytes=0-9,100-109,200-209' }, [[200, 209], [100, 109], [0, 9]]],
    ['suffix honoured', { Range: 'bytes=0-9,-10' }, [[3990, 3999], [0, 9]]],
    ['one range: the fixed pair', { Range: 'bytes=0-99' }, [[200, 299], [0, 99]]],
    ['coalescing to one: the fixed pair', { Range: 'bytes=0-99,50-149' }, [[200, 299], [0, 99]]],
    ['malformed: the fixed pair', { Range: 'bytes=x' }, [[200, 299], [0, 99]]],
    ['If-Range mismatch not consulted', { Range: 'bytes=0-99,200-299', 'If-Range': '"nope"' }, [[200, 299], [0, 99]]],
  ];
  for (const [label, headers, parts] of cases) {
    const ex = await exchange(chaos, '/range?mode=bad-multipart', headers);
    expectChaosLines(t, ex.res, 'payload', '/range', 'X-Chaos-Range-Mode', 'bad-multipart');
    assertOutcome(t, label, ex, partial(...parts));
    const starts = multipartParts(ex.body).map((p) => Number(/bytes (\d+)-/.exec(p.range)?.[1]));
    t.ok(starts.some((s, i) => i > 0 && s < (starts[i - 1] as number)), `${label}: non-monotonic (${starts.join(' before ')})`);
  }
});

t.test('chaos /range: HEAD and bad input', async (t) => {
  const head = await exchange(chaos, '/range', { Range: 'bytes=0-99' }, 'HEAD');
  t.equal(head.res.status, 206);
  t.equal(head.res.header('Content-Range'), 'bytes 0-99/4000');
  t.equal(head.res.header('Content-Length'), '100');
  t.equal(head.body.length, 0, 'no body on HEAD');
  realFailure(t, await exchange(chaos, '/range?mode=lies'), 'mode');
});

t.test('curl -r on the range lies', async (t) => {
  const lie = await curl(['-r', '0-99', `http://127.0.0.1:${chaos}/range`]);
  t.equal(lie.code, 0);
  t.same(lie.stdout, RESOURCE.subarray(500, 600), 'curl -r 0-99 shows bytes 500..599');
  t.ok(lie.stdout.toString().startsWith('000000500\n'));
  const suffix = await curl(['-r', '-10', `http://127.0.0.1:${chaos}/range?mode=suffix-confusion`]);
  t.equal(suffix.stdout.toString(), '000000000\n', 'curl -r -10 gets the first 10 bytes');
  const honest = await curl(['-r', '0-99', `http://127.0.0.1:${control}/range`]);
  t.same(honest.stdout, RESOURCE.subarray(0, 100), 'the control twin gives bytes 0..99');
});
