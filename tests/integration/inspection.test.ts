// The inspection family on real sockets: requests with odd header case, order
// and repeats; each chaos mode's exact distortion; text, binary, chunked and
// oversized bodies; /dump byte for byte; the client address behind a trusted
// proxy; and the control twins echoing faithfully.
import t from 'tap';
import { exchangesComplete, parseExchanges, type Exchange } from '../helpers/final-response.js';
import { proxyV2 } from '../helpers/proxy-v2.js';
import { rawExchange } from '../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../helpers/servers.js';

async function ask(port: number, request: string | Buffer | readonly (string | Buffer)[], headOnly = false): Promise<Exchange> {
  const raw = await rawExchange(port, request, { until: exchangesComplete(1, [headOnly]), timeoutMs: 5000 });
  const exchanges = parseExchanges(raw.data, [headOnly]);
  if (!exchanges?.[0]) throw new Error(`no complete response: ${JSON.stringify(raw.data.toString('latin1').slice(0, 300))} (${raw.end})`);
  return exchanges[0];
}

function json(ex: Exchange): Record<string, unknown> {
  return JSON.parse(ex.body.toString('utf8')) as Record<string, unknown>;
}

/** Odd case, a repeated name in two spellings, OWS around a value, an empty value. */
const ODD_LINES = 'hOST: a\r\nX-b:  two  \r\nx-B: three\r\nuser-agent: curl/8.5.0\r\nx-eMpTy:\r\n';
const ODD = [['hOST', 'a'], ['X-b', 'two'], ['x-B', 'three'], ['user-agent', 'curl/8.5.0'], ['x-eMpTy', '']];
const oddGet = (target: string) => `GET ${target} HTTP/1.1\r\n${ODD_LINES}\r\n`;

/** Each mode's echo of ODD, written out by hand. */
const EXPECTED_LINES: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  faithful: ODD as [string, string][],
  reordered: [['x-eMpTy', ''], ['user-agent', 'curl/8.5.0'], ['x-B', 'three'], ['X-b', 'two'], ['hOST', 'a']],
  dropped: [['hOST', 'a'], ['X-b', 'two'], ['x-B', 'three'], ['x-eMpTy', '']],
  // x-eMpTy was sent in the first alternation, so it gets the other one; X-b and x-B both become x-b.
  'case-mangled': [['hOsT', 'a'], ['x-b', 'two'], ['x-b', 'three'], ['uSeR-AgEnT', 'curl/8.5.0'], ['X-EmPtY', '']],
  'truncated-values': [['hOST', ''], ['X-b', 't'], ['x-B', 'th'], ['user-agent', 'curl/'], ['x-eMpTy', '']],
};
/** The object of case-mangled: the two spellings of X-B now one name, joined. */
const MANGLED_OBJECT = [['hOsT', 'a'], ['x-b', 'two, three'], ['uSeR-AgEnT', 'curl/8.5.0'], ['X-EmPtY', '']];

t.test('chaos /headers: each mode distorts exactly as documented', async (t) => {
  const { port } = await startChaos(t);
  for (const [mode, lines] of Object.entries(EXPECTED_LINES)) {
    const ex = await ask(port, oddGet(`/headers?mode=${mode}`));
    t.equal(ex.response.status, 200, mode);
    t.equal(ex.response.header('x-chaos-inspection-mode'), mode, `${mode}: named in X-Chaos-Inspection-Mode`);
    const body = json(ex);
    t.same(body.header_lines, lines, `${mode}: the lines`);
    t.same(Object.entries(body.headers as object), mode === 'case-mangled' ? MANGLED_OBJECT : lines, `${mode}: the object, in the same order (each spelling its own key)`);
  }
  const dropTwo = json(await ask(port, oddGet('/headers?mode=dropped&drop=X-B&drop=host')));
  t.same(dropTwo.header_lines, [['user-agent', 'curl/8.5.0'], ['x-eMpTy', '']], 'drop names any case, every line of the name');
  const joined = json(await ask(port, 'GET /headers HTTP/1.1\r\nHost: a\r\nX-R: 1\r\nX-R: 2\r\n\r\n'));
  t.same(joined.headers, { Host: 'a', 'X-R': '1, 2' }, 'a name repeated exactly is joined');
  t.same(joined.header_lines, [['Host', 'a'], ['X-R', '1'], ['X-R', '2']], 'and listed twice');
  const proto = json(await ask(port, 'GET /headers HTTP/1.1\r\nHost: a\r\n__proto__: x\r\n\r\n'));
  t.same(Object.keys(proto.headers as object), ['Host', '__proto__'], 'a header named __proto__ is echoed like any other');
  for (const bad of ['mode=wrong-ip', 'mode=bogus', 'mode=dropped&drop=a%20b', `mode=dropped&${Array.from({ length: 17 }, (_, i) => `drop=h${i}`).join('&')}`]) {
    const ex = await ask(port, oddGet(`/headers?${bad}`));
    t.equal(ex.response.status, 400, `${bad.slice(0, 30)}: 400`);
    t.equal(ex.response.header('x-chaos-inspection-mode'), undefined, 'a real error, no chaos line');
  }
});

t.test('chaos /dump: the head byte for byte, then the body; modes rebuild the lines', async (t) => {
  const { port } = await startChaos(t);
  const body = Buffer.from([0x00, 0xff, 0x0d, 0x0a, 0x80, 0x41]);
  const head = `PUT /dump?x=%2F HTTP/1.1\r\nhOST: a\r\nX-b:  two  \r\nx-B:three\r\nContent-Length: ${body.length}\r\n\r\n`;
  const ex = await ask(port, [head, body]);
  t.equal(ex.response.status, 200);
  t.equal(ex.response.header('content-type'), 'text/plain');
  t.ok(ex.body.equals(Buffer.concat([Buffer.from(head, 'latin1'), body])), 'exactly the bytes sent');
  t.equal(ex.response.header('x-inspection-body-bytes'), String(body.length));

  const trunc = await ask(port, [head.replace('/dump?x=%2F', '/dump?mode=truncated-values'), body]);
  t.equal(
    trunc.body.toString('latin1'),
    `PUT /dump?mode=truncated-values HTTP/1.1\r\nhOST: \r\nX-b:  t  \r\nx-B:th\r\nContent-Length: \r\n\r\n${body.toString('latin1')}`,
    'truncated-values: halves each value, keeps its whitespace',
  );
  const mangled = await ask(port, 'GET /dump?mode=case-mangled HTTP/1.1\r\nhOST: a\r\nX-b:  two  \r\n\r\n');
  t.equal(mangled.body.toString('latin1'), 'GET /dump?mode=case-mangled HTTP/1.1\r\nhOsT: a\r\nx-b:  two  \r\n\r\n');
  const reordered = await ask(port, 'GET /dump?mode=reordered HTTP/1.1\r\nhOST: a\r\nX-b:  two  \r\n\r\n');
  t.equal(reordered.body.toString('latin1'), 'GET /dump?mode=reordered HTTP/1.1\r\nX-b:  two  \r\nhOST: a\r\n\r\n');
  const dropped = await ask(port, 'GET /dump?mode=dropped&drop=x-b HTTP/1.1\r\nhOST: a\r\nX-b:  two  \r\nUser-Agent: u\r\n\r\n');
  t.equal(dropped.body.toString('latin1'), 'GET /dump?mode=dropped&drop=x-b HTTP/1.1\r\nhOST: a\r\nUser-Agent: u\r\n\r\n');
  t.equal(dropped.response.header('x-chaos-inspection-mode'), 'dropped');

  const chunked = await ask(port, 'POST /dump HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\n');
  t.equal(chunked.body.toString('latin1'), 'POST /dump HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nabcde', 'a chunked body is shown decoded (documented)');

  const big = Buffer.alloc(64 * 1024 + 100, 0x61);
  const bounded = await ask(port, [`POST /dump HTTP/1.1\r\nHost: a\r\nContent-Length: ${big.length}\r\n\r\n`, big]);
  t.equal(bounded.body.length, `POST /dump HTTP/1.1\r\nHost: a\r\nContent-Length: ${big.length}\r\n\r\n`.length + 64 * 1024, 'at most 64 KiB of body');
  t.equal(bounded.response.header('x-inspection-body-bytes'), String(big.length), 'the whole length stated');
});

t.test('chaos /anything: any method, any sub-path, bodies as text or base64, bounded', async (t) => {
  const { port } = await startChaos(t);
  const text = Buffer.from('héllo ✓', 'utf8');
  const ex = await ask(port, [`POST /anything/a/b%20c?q=1&q=2&s=a+b HTTP/1.1\r\nhOST: a\r\nX-b: 1\r\nContent-Length: ${text.length}\r\n\r\n`, text]);
  t.equal(ex.response.header('x-chaos-inspection-mode'), 'faithful');
  t.same(json(ex), {
    method: 'POST',
    url: 'http://chaos.test:8080/anything/a/b%20c?q=1&q=2&s=a+b',
    path: '/anything/a/b%20c',
    args: { q: ['1', '2'], s: 'a b' },
    headers: { hOST: 'a', 'X-b': '1', 'Content-Length': String(text.length) },
    header_lines: [['hOST', 'a'], ['X-b', '1'], ['Content-Length', String(text.length)]],
    origin: '127.0.0.1',
    data: 'héllo ✓',
    data_encoding: 'utf-8',
    data_bytes: text.length,
    data_truncated: false,
    json: null,
  });
  const binary = Buffer.from([0xff, 0x00, 0x80, 0x41]);
  const bin = json(await ask(port, [`PATCH /anything HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\n`, binary]));
  t.equal(bin.method, 'PATCH');
  t.equal(bin.path, '/anything');
  t.same([bin.data, bin.data_encoding], [binary.toString('base64'), 'base64'], 'not UTF-8: base64');
  const parsed = json(await ask(port, 'DELETE /anything HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{"a":[1]}'));
  t.same(parsed.json, { a: [1] }, 'a JSON body is parsed');
  for (const method of ['GET', 'PUT', 'OPTIONS']) {
    const res = await ask(port, `${method} /anything/x HTTP/1.1\r\nHost: a\r\n\r\n`);
    t.equal(res.response.status, 200, `${method} answered`);
    t.equal(json(res).method, method);
  }
  const big = Buffer.alloc(64 * 1024 + 100, 0x62);
  const bounded = json(await ask(port, [`POST /anything HTTP/1.1\r\nHost: a\r\nContent-Length: ${big.length}\r\n\r\n`, big]));
  t.equal((bounded.data as string).length, 64 * 1024, 'the body cut at 64 KiB');
  t.equal(bounded.data_bytes, big.length);
  t.equal(bounded.data_truncated, true);
  const tooBig = await rawExchange(port, `POST /anything HTTP/1.1\r\nHost: a\r\nContent-Length: ${1024 * 1024 + 1}\r\n\r\n`, { timeoutMs: 3000 });
  t.match(tooBig.data.toString('latin1'), /^HTTP\/1\.1 413 /, 'beyond 1 MiB: a real 413');

  const wrong = json(await ask(port, oddGet('/anything?mode=wrong-ip')));
  t.equal(wrong.origin, '203.0.113.1', 'wrong-ip: a documentation address');
  t.same(wrong.header_lines, ODD, 'and nothing else distorted');
  const reordered = json(await ask(port, oddGet('/anything?mode=reordered')));
  t.same(reordered.header_lines, EXPECTED_LINES.reordered);
  t.equal(reordered.origin, '127.0.0.1');
});

t.test('chaos /ip and /user-agent', async (t) => {
  const { port } = await startChaos(t);
  t.same(json(await ask(port, oddGet('/ip'))), { origin: '127.0.0.1' });
  t.same(json(await ask(port, oddGet('/ip?mode=wrong-ip'))), { origin: '203.0.113.1' });
  t.equal((await ask(port, oddGet('/ip?mode=reordered'))).response.status, 400, '/ip offers only faithful and wrong-ip');
  t.same(json(await ask(port, oddGet('/user-agent'))), { 'user-agent': 'curl/8.5.0' }, 'any case of the name');
  t.same(json(await ask(port, oddGet('/user-agent?mode=dropped'))), { 'user-agent': null }, 'dropped: User-Agent by default');
  t.same(json(await ask(port, oddGet('/user-agent?mode=dropped&drop=X-EMPTY'))), { 'user-agent': 'curl/8.5.0' }, 'dropped: only what drop names');
  t.same(json(await ask(port, oddGet('/user-agent?mode=truncated-values'))), { 'user-agent': 'curl/' });
  t.same(json(await ask(port, 'GET /user-agent HTTP/1.1\r\nHost: a\r\n\r\n')), { 'user-agent': null }, 'none sent: null');
  t.equal((await ask(port, oddGet('/user-agent?mode=case-mangled'))).response.status, 400);
});

t.test('chaos: the client address behind a trusted proxy (PROXY v2)', async (t) => {
  const { port } = await startChaos(t, { config: testConfig({ TRUST_PROXY: '127.0.0.1' }) });
  const via = (source: string, target: string) => ask(port, [proxyV2({ source }), `GET ${target} HTTP/1.1\r\nHost: a\r\n\r\n`]);
  t.same(json(await via('192.0.2.9', '/ip')), { origin: '192.0.2.9' });
  t.same(json(await via('192.0.2.9', '/ip?mode=wrong-ip')), { origin: '203.0.113.9' });
  t.same(json(await via('203.0.113.9', '/ip?mode=wrong-ip')), { origin: '198.51.100.9' }, 'never the real address');
  t.same(json(await via('2001:db8::7', '/ip?mode=wrong-ip')), { origin: '2001:db8::1:7' }, 'IPv6, already a documentation address');
  t.same(json(await via('2001:0db8:0:0:0:0:0:7', '/anything')).origin, '2001:db8::7', 'the canonical address');
});

t.test('control twins echo faithfully, in the same shapes', async (t) => {
  const { port: chaos } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control', testConfig({ TRUST_PROXY: '127.0.0.1' }));
  for (const target of ['/headers', '/user-agent', '/ip']) {
    const [c, h] = [await ask(chaos, oddGet(target)), await ask(control, oddGet(target))];
    t.equal(h.response.status, 200, `control ${target}`);
    t.same(json(h), json(c), `control ${target}: what the chaos host echoes faithfully`);
    t.equal(h.response.header('x-chaos-inspection-mode'), undefined, 'no mode on the twin');
    t.equal(h.response.header('x-chaos-counterpart'), `http://chaos.test:8080${target}`);
  }
  t.same(json(await ask(control, oddGet('/headers?mode=reordered'))).header_lines, ODD, 'a mode asked of the twin changes nothing');
  const text = Buffer.from('{"k":"✓"}', 'utf8');
  const request = [`POST /anything/a?q=1 HTTP/1.1\r\nhOST: a\r\nX-b: 1\r\nx-B: 2\r\nContent-Length: ${text.length}\r\n\r\n`, text];
  const [c, h] = [json(await ask(chaos, request)), json(await ask(control, request))];
  t.same({ ...h, url: undefined }, { ...c, url: undefined }, 'control /anything: the same fields');
  t.equal(h.url, 'http://control.test:8080/anything/a?q=1', 'its own URL');
  t.same(h.json, { k: '✓' });
  const binary = Buffer.from([0xff, 0xfe, 0x00]);
  t.equal(json(await ask(control, [`PUT /anything HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n`, binary])).data, binary.toString('base64'));
  t.same(json(await ask(control, 'GET /ip HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 192.0.2.44\r\n\r\n')), { origin: '192.0.2.44' }, 'X-Forwarded-For from a trusted peer');

  const body = Buffer.from([0x00, 0xff, 0x41]);
  const head = 'POST /dump?x=1 HTTP/1.1\r\nhOST: a\r\nX-b:  two  \r\nx-B:three\r\nContent-Length: 3\r\n\r\n';
  const dump = await ask(control, [head, body]);
  t.equal(dump.response.header('content-type'), 'text/plain');
  t.equal(dump.response.header('x-inspection-body-bytes'), '3');
  t.equal(
    dump.body.toString('latin1'),
    `POST /dump?x=1 HTTP/1.1\r\nhOST: a\r\nX-b: two\r\nx-B: three\r\nContent-Length: 3\r\n\r\n${body.toString('latin1')}`,
    'rebuilt: names, order, repeats and body exact; one space around each value (documented)',
  );
  const chunked = await ask(control, 'POST /dump HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
  t.equal(chunked.body.toString('latin1'), 'POST /dump HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nabc');

  const big = Buffer.alloc(64 * 1024 + 100, 0x63);
  const bounded = json(await ask(control, [`POST /anything HTTP/1.1\r\nHost: a\r\nContent-Length: ${big.length}\r\n\r\n`, big]));
  t.same([(bounded.data as string).length, bounded.data_bytes, bounded.data_truncated], [64 * 1024, big.length, true], 'the same bound');
  const huge = Buffer.alloc(1024 * 1024 + 1, 0x64);
  const refused = await rawExchange(control, [`POST /anything HTTP/1.1\r\nHost: a\r\nContent-Length: ${huge.length}\r\n\r\n`, huge], { timeoutMs: 5000 });
  t.match(refused.data.toString('latin1'), /^HTTP\/1\.1 413 /, 'beyond 1 MiB: a real 413');
  t.not(refused.end, 'timeout', 'and the connection ends');
});
