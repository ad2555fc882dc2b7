// Issue 12, headers: /duplicate-headers, /huge-header and /cookies on raw
// sockets (the exact bytes of every mode, the 400s), and their control twins
// read by node:http, which refuses what is not well-formed.
import t, { type Test } from 'tap';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { nodeGet, type NodeAnswer } from '../../helpers/node-get.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const withoutDate = (text: string): string => text.replace(/(\r?\n)Date: [^\r\n]*/, '$1Date: <date>');
const chaosLines = (data: Buffer): string[] =>
  parseHead(data).headerLines.filter(([n]) => /^x-chaos-/i.test(n)).map(([n]) => n);

/** Asks for each target and expects a 400 parameter error without any X-Chaos-* line. */
async function expect400(t: Test, port: number, targets: readonly string[]): Promise<void> {
  for (const target of targets) {
    const r = await rawExchange(port, get(target), { until: completeByLength });
    const head = parseHead(r.data);
    t.equal(head.status, 400, `${target.slice(0, 60)}: 400`);
    t.same(chaosLines(r.data), [], `${target.slice(0, 60)}: a real error, no X-Chaos-*`);
    t.equal((JSON.parse(head.rest.toString()) as { error: string }).error, 'invalid_parameter');
  }
}

// ---- /duplicate-headers ---------------------------------------------------

/** mode → [status line, the lines as they follow in the head]. */
const DUPLICATES = {
  'content-type': ['HTTP/1.1 200 OK', ['Content-Type: application/json', 'Content-Type: text/html; charset=utf-8', 'Content-Length: <n>']],
  'content-length': ['HTTP/1.1 200 OK', ['Content-Type: application/json', 'Content-Length: <n>', 'Content-Length: <2n>']],
  'cache-control': ['HTTP/1.1 200 OK', ['Content-Type: application/json', 'Content-Length: <n>']],
  location: ['HTTP/1.1 302 Found', ['Content-Type: application/json', 'Content-Length: <n>']],
  'set-cookie-folded': ['HTTP/1.1 200 OK', ['Content-Type: application/json', 'Content-Length: <n>']],
} as const;
const AFTER: Readonly<Record<keyof typeof DUPLICATES, readonly string[]>> = {
  'content-type': [],
  'content-length': [],
  'cache-control': ['Cache-Control: public, max-age=3600', 'Cache-Control: no-store'],
  location: ['Location: /status/200', 'Location: /status/418'],
  'set-cookie-folded': ['Set-Cookie: first=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT, second=2; Path=/'],
};
const HEADER_OF = { 'content-type': 'Content-Type', 'content-length': 'Content-Length', 'cache-control': 'Cache-Control', location: 'Location', 'set-cookie-folded': 'Set-Cookie' } as const;

t.test('/duplicate-headers: the exact bytes of every mode', async (t) => {
  const { port } = await startChaos(t);
  for (const [mode, [statusLine, first]] of Object.entries(DUPLICATES) as [keyof typeof DUPLICATES, (typeof DUPLICATES)[keyof typeof DUPLICATES]][]) {
    const r = await rawExchange(port, get(`/duplicate-headers?mode=${mode}`), { timeoutMs: 600 });
    const body = `{"endpoint":"/duplicate-headers","mode":"${mode}","header":"${HEADER_OF[mode]}"}\n`;
    const closing = mode === 'content-length';
    const lines = [
      statusLine,
      ...first.map((l) => l.replace('<n>', String(body.length)).replace('<2n>', String(2 * body.length))),
      'Date: <date>',
      ...(closing ? ['Connection: close'] : []),
      'X-Chaos-Category: headers',
      'X-Chaos-Endpoint: /duplicate-headers',
      `X-Chaos-Duplicate-Mode: ${mode}`,
      `X-Chaos-Duplicated: ${HEADER_OF[mode]}`,
      ...AFTER[mode],
    ];
    t.equal(withoutDate(r.data.toString('latin1')), `${lines.join('\r\n')}\r\n\r\n${body}`, `${mode}: the exact bytes`);
    t.equal(r.end, closing ? 'fin' : 'timeout', closing ? 'content-length: then a close' : `${mode}: the connection stays open`);
  }
  await expect400(t, port, ['/duplicate-headers?mode=etag']);
});

t.test('/duplicate-headers?mode=content-length: node:http refuses it', async (t) => {
  const { port } = await startChaos(t);
  await t.rejects(nodeGet(port, '/duplicate-headers?mode=content-length'), 'two different lengths: a parse error');
});

t.test('control /duplicate-headers: each header once, read by node:http', async (t) => {
  const { port } = await startHttp(t, 'control');
  const count = (r: NodeAnswer, name: string) => r.rawHeaders.filter((v, i) => i % 2 === 0 && v.toLowerCase() === name.toLowerCase()).length;
  for (const mode of Object.keys(DUPLICATES) as (keyof typeof DUPLICATES)[]) {
    const r = await nodeGet(port, `/duplicate-headers?mode=${mode}`);
    t.equal(r.status, mode === 'location' ? 302 : 200, `${mode}: the same status`);
    t.same(JSON.parse(r.body), { endpoint: '/duplicate-headers', mode, header: HEADER_OF[mode] });
    t.equal(count(r, 'content-type'), 1, `${mode}: one Content-Type`);
    t.equal(count(r, 'content-length'), 1, `${mode}: one Content-Length`);
  }
  t.equal((await nodeGet(port, '/duplicate-headers?mode=cache-control')).headers['cache-control'], 'public, max-age=3600');
  t.equal((await nodeGet(port, '/duplicate-headers?mode=location')).headers.location, '/status/200');
  t.same((await nodeGet(port, '/duplicate-headers?mode=set-cookie-folded')).headers['set-cookie'], [
    'first=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT',
    'second=2; Path=/',
  ]);
});

// ---- /huge-header ---------------------------------------------------------

const letters = (n: number): string => 'abcdefghijklmnopqrstuvwxyz'.repeat(Math.ceil(n / 26)).slice(0, n);

t.test('/huge-header: one value of exactly `size` bytes', async (t) => {
  const { port } = await startChaos(t);
  const r = await rawExchange(port, get('/huge-header?size=30'), { until: completeByLength });
  const body = '{"endpoint":"/huge-header","header":"X-Huge-Header","size":30}\n';
  t.equal(
    withoutDate(r.data.toString('latin1')),
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nDate: <date>\r\n` +
      'X-Chaos-Category: headers\r\nX-Chaos-Endpoint: /huge-header\r\nX-Chaos-Huge-Header: X-Huge-Header\r\nX-Chaos-Huge-Header-Bytes: 30\r\n' +
      `X-Huge-Header: ${letters(30)}\r\n\r\n${body}`,
    'the exact bytes',
  );
  for (const [query, size, clamped] of [['', 16384, undefined], ['size=262144', 262144, undefined], ['size=0', 1, 'size=1'], ['size=999999', 262144, 'size=262144']] as const) {
    const head = parseHead((await rawExchange(port, get(`/huge-header?${query}`), { until: completeByLength, timeoutMs: 3000 })).data);
    t.equal(head.header('x-huge-header'), letters(size), `${query || 'default'}: ${size} bytes`);
    t.equal(head.header('x-chaos-huge-header-bytes'), String(size));
    t.equal(head.header('x-chaos-clamped'), clamped, `${query || 'default'}: clamp reported as ${clamped ?? 'none'}`);
  }
  await expect400(t, port, ['/huge-header?size=abc', '/huge-header?size=1.5', '/huge-header?size=', '/huge-header?size=0x10']);
});

t.test('/huge-header: node:http refuses the default head; the twin carries the value as data', async (t) => {
  const { port } = await startChaos(t);
  await t.rejects(nodeGet(port, '/huge-header'), 'over node:http’s 16 KiB head limit');
  const control = (await startHttp(t, 'control')).port;
  const r = await nodeGet(control, '/huge-header?size=262144');
  t.equal(r.status, 200);
  t.equal(r.headers['x-huge-header'], undefined, 'no huge header on the twin');
  t.same(JSON.parse(r.body), { endpoint: '/huge-header', header: 'X-Huge-Header', size: 262144, value: letters(262144) });
});

// ---- /cookies -------------------------------------------------------------

const COOKIES: Readonly<Record<string, readonly string[]>> = {
  malformed: ['session', '=no-name; Path=/', 'bad name=1; Path=/', 'attrs=1; Max-Age=soon; Expires=tomorrow; Path=/'],
  // testConfig's chaos host is chaos.test.
  'conflicting-domain': ['session=host-only; Path=/', 'session=domain-wide; Domain=chaos.test; Path=/'],
  'conflicting-path': ['session=root; Path=/', 'session=cookies; Path=/cookies'],
  expired: ['session=expired; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT'],
  oversized: [`big=${'x'.repeat(4996)}; Path=/`],
  'samesite-none-insecure': ['session=cross-site; Path=/; SameSite=None'],
  many: Array.from({ length: 200 }, (_, i) => `c${String(i + 1).padStart(3, '0')}=${i + 1}; Path=/`),
};

t.test('/cookies: the exact Set-Cookie lines of every mode', async (t) => {
  const { port } = await startChaos(t);
  for (const [mode, cookies] of Object.entries(COOKIES)) {
    const r = await rawExchange(port, get(`/cookies?mode=${mode}`), { until: completeByLength });
    const body = `{"endpoint":"/cookies","mode":"${mode}","set_cookie_lines":${cookies.length}}\n`;
    t.equal(
      withoutDate(r.data.toString('latin1')),
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nDate: <date>\r\n` +
        `X-Chaos-Category: headers\r\nX-Chaos-Endpoint: /cookies\r\nX-Chaos-Cookie-Mode: ${mode}\r\nX-Chaos-Cookie-Count: ${cookies.length}\r\n` +
        `${cookies.map((c) => `Set-Cookie: ${c}\r\n`).join('')}\r\n${body}`,
      `${mode}: the exact bytes`,
    );
  }
  const oversized = parseHead((await rawExchange(port, get('/cookies?mode=oversized'), { until: completeByLength })).data);
  t.ok((oversized.header('set-cookie') ?? '').split(';')[0]!.length > 4096, 'oversized: name=value over 4096 bytes');
  const byDefault = parseHead((await rawExchange(port, get('/cookies'), { until: completeByLength })).data);
  t.equal(byDefault.header('x-chaos-cookie-mode'), 'malformed', 'malformed by default');
  await expect400(t, port, ['/cookies?mode=tasty', '/cookies?mode=']);
});

t.test('control /cookies: one well-formed cookie whatever the mode, read by node:http', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const mode of Object.keys(COOKIES)) {
    const r = await nodeGet(port, `/cookies?mode=${mode}`);
    t.equal(r.status, 200);
    t.same(r.headers['set-cookie'], ['session=ok; Path=/; HttpOnly; SameSite=Lax'], `${mode}: one cookie`);
    t.same(JSON.parse(r.body), { endpoint: '/cookies', mode, set_cookie_lines: 1 });
  }
});
