// /etag on the wire (headers category): the chaos host read on raw sockets,
// byte for byte, beside its control twin and its conditional requests.
import { execFile } from 'node:child_process';
import t from 'tap';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const chaos = (await startChaos(t)).port;
const control = (await startHttp(t, 'control')).port;

interface Exchange {
  readonly res: ParsedResponse;
  readonly body: Buffer;
}

/** One request on a fresh connection; the body is exactly Content-Length bytes, and nothing may follow. */
async function exchange(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Exchange> {
  const headOnly = method === 'HEAD';
  const result = await rawExchange(port, get(path, headers, method), {
    until: headOnly ? (data) => data.includes('\r\n\r\n') : completeByLength,
    timeoutMs: 3000,
  });
  const res = parseHead(result.data);
  const length = Number(res.header('content-length') ?? 0);
  if (!headOnly && res.rest.length !== length) throw new Error(`${path}: ${res.rest.length} body bytes for Content-Length ${length}`);
  return { res, body: res.rest };
}

function curl(args: readonly string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-s', '--max-time', '5', ...args], { encoding: 'buffer' }, (error, stdout, stderr) => {
      const code = error ? Number((error as NodeJS.ErrnoException & { code?: unknown }).code ?? -1) : 0;
      resolve({ code, stdout, stderr: stderr.toString() });
    });
  });
}

/** The assertions the helpers below use, on the root test or any subtest. */
type Assert = Pick<typeof t, 'same' | 'equal' | 'ok' | 'notOk' | 'type'>;

function chaosLines(t: Assert, res: ParsedResponse, category: string, endpoint: string, modeHeader: string, mode: string): void {
  t.same(res.headers('X-Chaos-Category'), [category], 'X-Chaos-Category');
  t.same(res.headers('X-Chaos-Endpoint'), [endpoint], 'X-Chaos-Endpoint');
  t.same(res.headers(modeHeader), [mode], modeHeader);
}

function realFailure(t: Assert, ex: Exchange, param: string): void {
  t.equal(ex.res.status, 400);
  t.notOk(ex.res.headerLines.some(([name]) => name.toLowerCase().startsWith('x-chaos-')), 'a real failure carries no X-Chaos-*');
  const body = JSON.parse(ex.body.toString()) as { error: string; param: string; endpoint: string; reason: string };
  t.equal(body.error, 'invalid_parameter');
  t.equal(body.param, param);
  t.type(body.reason, 'string');
}

// ---------------------------------------------------------------------------
// /etag

const QUOTED_TAG = /^"[0-9a-f]{16}"$/;
const twin = await exchange(control, '/etag');
const controlTag = twin.res.header('ETag') as string;
const controlBody = twin.body;

interface EtagDoc {
  endpoint: string;
  value: string;
  updated_at: string;
}

t.test('control /etag: stable strong ETag, past Last-Modified, JSON', async (t) => {
  t.equal(twin.res.status, 200);
  t.match(controlTag, QUOTED_TAG);
  t.equal(twin.res.header('Last-Modified'), 'Mon, 01 Jan 2024 00:00:00 GMT');
  t.ok(Date.parse(twin.res.header('Last-Modified') as string) < Date.now(), 'Last-Modified is in the past');
  t.equal(twin.res.header('Content-Type'), 'application/json');
  const doc = JSON.parse(controlBody.toString()) as EtagDoc;
  t.equal(doc.endpoint, '/etag');
  t.equal(doc.updated_at, '2024-01-01T00:00:00.000Z');
  t.equal(doc.value, '0e634f6447fe3375', 'the documented canonical value');
  const again = await exchange(control, '/etag');
  t.equal(again.res.header('ETag'), controlTag, 'same ETag on every call');
  t.same(again.body, controlBody, 'same body on every call');
});

t.test('control /etag: conditional requests', async (t) => {
  const opaque = controlTag.slice(1, -1);
  const cases: [string, Record<string, string>, 200 | 304][] = [
    ['If-None-Match equal', { 'If-None-Match': controlTag }, 304],
    ['If-None-Match weak form (weak comparison)', { 'If-None-Match': `W/${controlTag}` }, 304],
    ['If-None-Match list', { 'If-None-Match': `"nope", ${controlTag}` }, 304],
    ['If-None-Match with a comma inside a tag', { 'If-None-Match': `"a,b", W/${controlTag}` }, 304],
    ['If-None-Match *', { 'If-None-Match': '*' }, 304],
    ['If-None-Match other', { 'If-None-Match': '"0000000000000000"' }, 200],
    ['If-None-Match unquoted (malformed: ignored)', { 'If-None-Match': opaque }, 200],
    ['If-Modified-Since = Last-Modified', { 'If-Modified-Since': 'Mon, 01 Jan 2024 00:00:00 GMT' }, 304],
    ['If-Modified-Since later (RFC 850 form)', { 'If-Modified-Since': 'Tuesday, 02-Jan-24 00:00:00 GMT' }, 304],
    ['If-Modified-Since earlier', { 'If-Modified-Since': 'Sun, 31 Dec 2023 23:59:59 GMT' }, 200],
    ['If-Modified-Since not an HTTP-date', { 'If-Modified-Since': '2030' }, 200],
    ['If-None-Match wins over If-Modified-Since', { 'If-None-Match': '"other"', 'If-Modified-Since': 'Mon, 01 Jan 2024 00:00:00 GMT' }, 200],
  ];
  for (const [label, headers, status] of cases) {
    const { res, body } = await exchange(control, '/etag', headers);
    t.equal(res.status, status, label);
    t.equal(res.header('ETag'), controlTag, `${label}: ETag`);
    t.equal(res.header('Last-Modified'), 'Mon, 01 Jan 2024 00:00:00 GMT', `${label}: Last-Modified`);
    if (status === 304) {
      t.equal(body.length, 0, `${label}: no body`);
      t.equal(res.header('Content-Length'), undefined, `${label}: no Content-Length`);
    } else {
      t.same(body, controlBody, `${label}: full body`);
    }
  }
});

async function etag(query: string, headers: Record<string, string> = {}): Promise<Exchange & { doc: EtagDoc }> {
  const ex = await exchange(chaos, `/etag${query}`, headers);
  return { ...ex, doc: JSON.parse(ex.body.toString()) as EtagDoc };
}

t.test('chaos /etag random-etag: identical content, a new ETag per call', async (t) => {
  const a = await etag('');
  const b = await etag('?mode=random-etag');
  for (const x of [a, b]) {
    t.equal(x.res.status, 200);
    chaosLines(t, x.res, 'headers', '/etag', 'X-Chaos-Etag-Mode', 'random-etag');
    t.equal(x.res.headers('ETag').length, 1);
    t.match(x.res.header('ETag'), QUOTED_TAG);
    t.same(x.body, controlBody, 'the body is the canonical document, byte for byte');
    t.equal(x.res.header('Last-Modified'), undefined);
  }
  t.not(a.res.header('ETag'), b.res.header('ETag'), 'different ETags for identical content');
  t.not(a.res.header('X-Chaos-Etag-Seed'), b.res.header('X-Chaos-Etag-Seed'), 'unseeded calls draw fresh seeds');
  const replay = await etag(`?seed=${a.res.header('X-Chaos-Etag-Seed') as string}`);
  t.equal(replay.res.header('ETag'), a.res.header('ETag'), 'the reported seed replays the ETag');
});

t.test('chaos /etag random-etag with seed: pinned', async (t) => {
  const a = await etag('?seed=abc');
  const b = await etag('?mode=random-etag&seed=abc');
  const c = await etag('?seed=abd');
  t.equal(a.res.header('ETag'), '"bffd6b463f03ada1"', 'golden: seed abc');
  t.equal(b.res.header('ETag'), a.res.header('ETag'));
  t.not(c.res.header('ETag'), a.res.header('ETag'));
  t.equal(a.res.header('X-Chaos-Etag-Seed'), 'abc');
  const odd = await etag('?seed=a%20b%2Fc');
  t.equal(odd.res.header('X-Chaos-Etag-Seed'), 'a%20b%2Fc', 'the seed is reported percent-encoded');
  // If-None-Match is ignored: even the very tag it would send gets a full 200.
  const conditional = await etag('?seed=abc', { 'If-None-Match': a.res.header('ETag') as string });
  t.equal(conditional.res.status, 200);
  t.same(conditional.body, controlBody);
});

t.test('chaos /etag stable-etag-mutated-body: one ETag, changing bodies', async (t) => {
  const a = await etag('?mode=stable-etag-mutated-body');
  const b = await etag('?mode=stable-etag-mutated-body');
  for (const x of [a, b]) {
    t.equal(x.res.status, 200);
    chaosLines(t, x.res, 'headers', '/etag', 'X-Chaos-Etag-Mode', 'stable-etag-mutated-body');
    t.same(x.res.headers('ETag'), [controlTag], 'the control twin’s strong ETag');
    t.equal(x.doc.endpoint, '/etag');
    t.match(x.doc.value, /^[0-9a-f]{16}$/);
    const at = Date.parse(x.doc.updated_at);
    t.ok(at >= Date.UTC(2020, 0, 1) && at < Date.UTC(2030, 0, 1), 'updated_at in the 2020s');
  }
  t.not(a.doc.value, b.doc.value, 'value changes per call');
  t.not(a.doc.updated_at, b.doc.updated_at, 'timestamp changes per call');
  t.notSame(a.body, controlBody);

  const s1 = await etag('?mode=stable-etag-mutated-body&seed=abc');
  const s2 = await etag('?mode=stable-etag-mutated-body&seed=abc');
  const s3 = await etag('?mode=stable-etag-mutated-body&seed=xyz');
  t.same(s1.body, s2.body, 'seed pins the body');
  t.same(s1.doc, { endpoint: '/etag', value: '1f50687417e248d4', updated_at: '2026-10-15T23:31:26.000Z' }, 'golden: seed abc');
  t.notSame(s3.body, s1.body);
  t.same(s3.res.headers('ETag'), [controlTag], 'ETag never moves');
  const replay = await etag(`?mode=stable-etag-mutated-body&seed=${a.res.header('X-Chaos-Etag-Seed') as string}`);
  t.same(replay.body, a.body, 'the reported seed replays the body');
  const conditional = await etag('?mode=stable-etag-mutated-body', { 'If-None-Match': controlTag });
  t.equal(conditional.res.status, 200, 'a matching If-None-Match is ignored: 200 with the changed body');
});

t.test('chaos /etag fixed modes: the canonical body under lying validators; seed ignored', async (t) => {
  const opaque = controlTag.slice(1, -1);
  const cases: [string, [string, string][]][] = [
    ['weak-strong-conflict', [['ETag', controlTag], ['ETag', `W/${controlTag}`]]],
    ['unquoted', [['ETag', opaque]]],
    ['future-last-modified', [['Last-Modified', 'Thu, 01 Jan 2099 00:00:00 GMT']]],
  ];
  for (const [mode, lines] of cases) {
    for (const seed of ['', '&seed=abc', '&seed=other']) {
      const x = await etag(`?mode=${mode}${seed}`, { 'If-None-Match': controlTag });
      const label = `${mode}${seed}`;
      t.equal(x.res.status, 200, `${label}: If-None-Match ignored`);
      chaosLines(t, x.res, 'headers', '/etag', 'X-Chaos-Etag-Mode', mode);
      const validators = x.res.headerLines.filter(([name]) => name === 'ETag' || name === 'Last-Modified');
      t.same(validators, lines, `${label}: exact validator lines`);
      t.same(x.body, controlBody, `${label}: canonical body`);
      t.equal(x.res.header('X-Chaos-Etag-Seed'), undefined, `${label}: no seed reported`);
    }
  }
});

t.test('chaos /etag bad input: real 400s', async (t) => {
  realFailure(t, await exchange(chaos, '/etag?mode=strong'), 'mode');
  realFailure(t, await exchange(chaos, `/etag?seed=${'s'.repeat(257)}`), 'seed');
});
