// The hub's /compare on real sockets: a chaos server and a control process
// serving the hub, whose public URLs name them as the full stack does
// (chaos.localhost, control.localhost, localhost). The compare fetches both
// sides itself, over raw sockets, and reports the bytes and the ending.
import net from 'node:net';
import t from 'tap';
import { chaosHead, defineChaosEndpoint } from '../../../services/chaos/endpoint.js';
import { COMPARE_EXAMPLES, COMPARE_LIMITS } from '../../../shared/hub/compare/page.js';
import type { CompareReport, SideReport } from '../../../shared/hub/compare/report.js';
import { startCompareHub, type CompareHub } from '../../helpers/compare-hub.js';
import type { ParsedResponse } from '../../helpers/raw.js';

const JSON_ACCEPT = 'application/json';

async function compareJson(hub: CompareHub, path: string, localAddress?: string): Promise<{ response: ParsedResponse; report: CompareReport }> {
  const response = await hub.ask(`/compare?path=${encodeURIComponent(path)}`, { accept: JSON_ACCEPT, ...(localAddress ? { localAddress } : {}) });
  return { response, report: JSON.parse(response.rest.toString()) as CompareReport };
}

const line = (side: SideReport, name: string) => side.head_lines.find((l) => l.name?.toLowerCase() === name.toLowerCase())?.value;

t.test('/truncate?at=10: the chaos side ends early with a clean close, the twin is complete', async (t) => {
  const hub = await startCompareHub(t);
  const { response, report } = await compareJson(hub, '/truncate?at=10');
  t.equal(response.status, 200);
  t.match(response.header('content-type'), /^application\/json/);
  t.equal(report.path, '/truncate?at=10');
  t.same(report.endpoint, { id: 'truncate', path: '/truncate', category: 'payload' });

  const { chaos, twin } = report;
  t.equal(chaos.url, `http://chaos.localhost:${hub.chaosPort}/truncate?at=10`);
  t.equal(chaos.connected_to, `127.0.0.1:${hub.chaosPort}`, '*.localhost connects to the loopback');
  t.match(chaos.request, new RegExp(`^GET /truncate\\?at=10 HTTP/1\\.1\\r\\nHost: chaos\\.localhost:${hub.chaosPort}\\r\\n`), 'the public URL\'s Host');
  t.equal(chaos.status_line, 'HTTP/1.1 200 OK');
  t.same(chaos.end, { kind: 'close', code: null, detail: chaos.end.detail });
  t.match(chaos.end.detail, /clean close \(FIN\) mid-body.*Content-Length 20, 10 body bytes received/);
  t.match(chaos.framing, { kind: 'content-length', content_length: 20, body_bytes: 10, complete: false, excess_bytes: 0 });
  t.equal(chaos.body.text, '0123456789');
  t.equal(Buffer.from(chaos.body.base64, 'base64').toString(), '0123456789');
  t.ok(chaos.notes.includes('Content-Length says 20; 10 body bytes arrived (10 short)'));
  t.same(chaos.explanation.map((e) => e.name), ['X-Chaos-Category', 'X-Chaos-Endpoint', 'X-Chaos-Truncated-At', 'X-Chaos-Promised-Bytes', 'X-Chaos-Actual-Bytes']);
  t.ok(chaos.head_lines.filter((l) => l.chaos).every((l) => l.name?.startsWith('X-Chaos-')), 'X-Chaos-* lines are marked');
  t.equal(chaos.head_lines.find((l) => l.name === 'Content-Length')?.raw, 'Content-Length: 20', 'each line as sent');

  t.ok(twin, 'the twin was fetched');
  if (!twin) return;
  t.equal(twin.host, 'control');
  t.equal(twin.url, `http://control.localhost:${hub.controlPort}/truncate?at=10`, 'the twin keeps the query');
  t.match(twin.request, `Host: control.localhost:${hub.controlPort}\r\n`);
  t.match(twin.framing, { kind: 'content-length', content_length: 10, body_bytes: 10, complete: true });
  t.equal(twin.end.kind, 'close');
  t.match(twin.end.detail, /clean close \(FIN\) after the complete response/);
  t.equal(line(twin, 'X-Chaos-Origin'), 'control');
  t.same(twin.notes, []);
  t.equal(report.twin_note, null);
  const kinds = report.differences.map((d) => d.kind);
  t.ok(kinds.includes('ending'), 'the ending differs');
  t.ok(report.differences.some((d) => d.detail === 'Content-Length: chaos "20", twin "10"'), 'the lying header');
  t.notOk(kinds.includes('status'), 'the same status');
});

t.test('the HTML page: both sides, X-Chaos-* lines highlighted, a strict CSP', async (t) => {
  const hub = await startCompareHub(t);
  const page = await hub.ask(`/compare?path=${encodeURIComponent('/truncate?at=10')}`, { accept: 'text/html' });
  t.equal(page.status, 200);
  t.equal(page.header('content-type'), 'text/html; charset=utf-8');
  t.match(page.header('content-security-policy'), /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src 'none'; form-action 'self'/);
  t.equal(page.header('x-content-type-options'), 'nosniff');
  const html = page.rest.toString();
  t.match(html, '<span class="x">X-Chaos-Truncated-At: 10</span>');
  t.match(html, 'clean close (FIN) mid-body');
  t.match(html, '<section class="side chaos">');
  t.match(html, '<section class="side twin">');
  t.match(html, '<form method="get" action="/compare">');
  t.match(html, 'value="/truncate?at=10"', 'the form holds the path');
  t.notMatch(html, /<script|src=|<link/, 'nothing loaded from anywhere');
  for (const example of COMPARE_EXAMPLES) t.match(html, `href="/compare?path=${encodeURIComponent(example).replace(/'/g, '&#39;')}"`, `example ${example} linked`);
  const json = await hub.ask(`/compare?path=${encodeURIComponent('/truncate?at=10')}&format=json`, { accept: 'text/html' });
  t.match(json.header('content-type'), /^application\/json/, 'format=json wins over Accept');
  const bare = await hub.ask('/compare', { accept: 'text/html' });
  t.equal(bare.status, 200, 'a bare /compare is the empty form');
  t.match(bare.rest.toString(), 'Headline lies');
  const hubPage = (await hub.ask('/', { accept: 'text/html' })).rest.toString();
  t.match(hubPage, 'href="/compare"', 'the hub page links the compare');
});

t.test('/reset: the chaos side shows the reset', async (t) => {
  const hub = await startCompareHub(t);
  const before = (await compareJson(hub, '/reset')).report;
  t.match(before.chaos.end, { kind: 'reset', code: 'ECONNRESET' });
  t.equal(before.chaos.bytes_received, 0);
  t.equal(before.chaos.end.detail, 'reset (ECONNRESET) before any byte');
  t.equal(before.twin?.status, 200);
  const mid = (await compareJson(hub, '/reset?phase=mid-body&after=64')).report;
  t.match(mid.chaos.end, { kind: 'reset', code: 'ECONNRESET' });
  t.match(mid.chaos.end.detail, /^reset \(ECONNRESET\) mid-body \(Content-Length \d+, 64 body bytes received\)$/);
  t.match(mid.chaos.framing, { kind: 'content-length', body_bytes: 64, complete: false });
  t.match(mid.twin?.end, { kind: 'close' });
});

t.test('a holding endpoint: timeout within the bound; past a client\'s share, 429; past the process\'s, 503', async (t) => {
  const hub = await startCompareHub(t);
  const { maxInFlightPerClient, maxInFlight, timeoutMs } = COMPARE_LIMITS;
  const clients = Array.from({ length: maxInFlight / maxInFlightPerClient }, (_, i) => `127.0.0.${i + 1}`);
  const started = performance.now();
  const holding = clients.flatMap((client) => Array.from({ length: maxInFlightPerClient }, () => compareJson(hub, '/stall?after=4', client)));
  // Every compare holds a chaos /stall response (30 s of silence) until its own bound.
  for (let waited = 0; hub.chaos.heldResponses < maxInFlight && waited < 4000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  t.equal(hub.chaos.heldResponses, maxInFlight, `${maxInFlight} compares in flight`);
  const own = await hub.ask(`/compare?path=${encodeURIComponent('/stall?after=4')}`, { accept: JSON_ACCEPT, localAddress: clients[0] as string });
  t.equal(own.status, 429, 'a client past its share');
  t.equal(own.header('retry-after'), '1');
  t.match(JSON.parse(own.rest.toString()), { status: 429, policy: 'compare' });
  t.notOk(own.headerLines.some(([name]) => name.toLowerCase().startsWith('x-chaos-')), 'a real limit: no X-Chaos-* line');
  const other = await hub.ask(`/compare?path=${encodeURIComponent('/stall?after=4')}`, { accept: JSON_ACCEPT, localAddress: `127.0.0.${clients.length + 1}` });
  t.equal(other.status, 503, 'past the process cap');
  t.equal(other.header('retry-after'), '1');
  t.equal(hub.chaos.heldResponses, maxInFlight, 'both refusals came while the compares still held their chaos responses');

  const results = await Promise.all(holding);
  const elapsed = performance.now() - started;
  t.ok(elapsed < timeoutMs + 10_000, `the compares ended within the bound (${Math.round(elapsed)} ms)`);
  for (const { response, report } of results) {
    t.equal(response.status, 200);
    t.equal(report.chaos.end.kind, 'timeout');
    t.ok(report.chaos.elapsed_ms >= timeoutMs - 50 && report.chaos.elapsed_ms < timeoutMs + 5000, `stopped at the bound (${report.chaos.elapsed_ms} ms)`);
    t.match(report.chaos.end.detail, `timeout: no end within ${timeoutMs} ms`);
    t.match(report.chaos.framing, { kind: 'content-length', content_length: 5, body_bytes: 4, complete: false });
    t.match(report.twin, { status: 200, framing: { complete: true, body_bytes: 5 } });
  }
  t.equal((await compareJson(hub, '/status/418', clients[0])).response.status, 200, 'the share is given back');
});

t.test('/status/418 on both sides', async (t) => {
  const hub = await startCompareHub(t);
  const { report } = await compareJson(hub, '/status/418');
  t.same(report.endpoint, { id: 'status', path: '/status/{code}', category: 'status' });
  t.equal(report.chaos.status, 418);
  t.equal(report.twin?.status, 418);
  t.equal(report.twin?.url, `http://control.localhost:${hub.controlPort}/status/418`, 'a templated twin by the concrete path');
  t.notOk(report.differences.some((d) => d.detail.startsWith('status: ')), 'no status difference');
});

t.test('the JSON form\'s shape', async (t) => {
  const hub = await startCompareHub(t);
  const { report } = await compareJson(hub, '/duplicate-headers?mode=content-length');
  const side = {
    host: String, url: String, connected_to: String, request: String, elapsed_ms: Number, bytes_received: Number,
    end: { kind: String, detail: String }, interim: Array, head_complete: Boolean, not_http: Boolean,
    status_line: String, status_line_end: 'crlf', status: Number, status_notes: Array, head_lines: Array, explanation: Array,
    framing: { kind: String, body_bytes: Number, complete: Boolean, excess_bytes: Number },
    body: { bytes: Number, text: String, base64: String }, notes: Array,
  };
  t.match(report, { path: String, endpoint: { id: String, path: String, category: String }, limits: { timeout_ms: 5000, max_bytes: 65536 }, chaos: side, twin: side, twin_note: null, differences: Array });
  t.match(report.chaos.head_lines[0], { raw: String, name: String, value: String, line_end: 'crlf', chaos: Boolean, notes: Array });
  t.same(report.chaos.head_lines.filter((l) => l.name === 'Content-Length').map((l) => l.raw).length, 2, 'both Content-Length lines, as sent');
  t.ok(report.chaos.notes.includes('Content-Length sent 2 times'));
  t.match(report.chaos.framing, { kind: 'conflicting-length' });
  for (const d of report.differences) t.match(d, { kind: String, detail: String });
});

t.test('bad input: a 400 with the parameter error body, nothing fetched', async (t) => {
  const hub = await startCompareHub(t);
  let connections = 0;
  hub.chaos.server.on('connection', () => connections++);
  const cases: [string, string, RegExp][] = [
    ['/compare?format=json', 'missing_parameter', /path is required/],
    ['/compare?path=', 'invalid_parameter', /path is empty/],
    ['/compare?path=truncate', 'invalid_parameter', /must start with a single \//],
    ['/compare?path=%2Fnope', 'invalid_parameter', /names no chaos endpoint: \/nope/],
    ['/compare?path=%2Ftrunc', 'invalid_parameter', /did you mean \/truncate\?/],
    [`/compare?path=%2Fslow%3Fms%3D${'1'.repeat(2100)}`, 'invalid_parameter', /at most 2048/],
    ['/compare?path=%2Ftruncate%0D%0AX-Injected%3A%201', 'invalid_parameter', /holds a CR at character 10/],
    ['/compare?path=%2Ftruncate%0AX', 'invalid_parameter', /holds a LF/],
    ['/compare?path=%2Ftruncate%20HTTP%2F1.0', 'invalid_parameter', /holds a space/],
    ['/compare?path=%2Fstatus%2F%7Bcode%7D', 'invalid_parameter', /holds "\{"/],
    ['/compare?path=%2Fllm%2Fv1%2Fchat%2Fcompletions', 'invalid_parameter', /does not serve GET/],
    ['/compare?path=%2Ftruncate%3Fat%3D1&mode=x', 'invalid_parameter', /mode is not a parameter of \/compare.*%26/],
    ['/compare?path=%ZZ', 'malformed_query', /malformed percent-encoding/],
    ['/compare?path=%2Fslow&format=xml', 'invalid_parameter', /format must be one of html, json/],
  ];
  for (const [target, error, reason] of cases) {
    const response = await hub.ask(target, { accept: JSON_ACCEPT });
    t.equal(response.status, 400, target.slice(0, 80));
    t.match(response.header('content-type'), /^application\/json/);
    const body = JSON.parse(response.rest.toString()) as { endpoint: string; error: string; reason: string; param: string };
    t.match(body, { endpoint: '/compare', error, reason });
    t.notOk(response.headerLines.some(([name]) => name.toLowerCase().startsWith('x-chaos-')), 'a real failure: no X-Chaos-* line');
  }
  const page = await hub.ask('/compare?path=%2F%3Cscript%3Ealert(1)%3C%2Fscript%3E', { accept: 'text/html' });
  t.equal(page.status, 400, 'a browser gets the form back with the error');
  t.equal(page.header('content-type'), 'text/html; charset=utf-8');
  const html = page.rest.toString();
  t.match(html, 'Nothing fetched: 400 invalid_parameter');
  t.notMatch(html, '<script>', 'the path is echoed escaped');
  t.match(html, 'value="/&#60;script&#62;alert(1)&#60;/script&#62;"');
  t.equal((await hub.ask('/compare?path=%2Fslow', { method: 'POST' })).status, 405, 'GET and HEAD only');
  t.equal((await hub.ask('/compare?path=%2Fslow', { method: 'POST' })).header('allow'), 'GET, HEAD');
  t.equal(connections, 0, 'no request reached the chaos host');
});

t.test('SSRF: nothing but the configured hosts is ever connected to', async (t) => {
  const hub = await startCompareHub(t);
  const evil = net.createServer((socket) => socket.destroy());
  let reached = 0;
  evil.on('connection', () => reached++);
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => evil.close(() => resolve())));
  const at = `127.0.0.1:${(evil.address() as net.AddressInfo).port}`;
  const attempts = [
    `//${at}/`, `http://${at}/`, `@${at}/`, `/@${at}/`, `\\\\${at}/`, `/\\${at}/`, `///${at}/`,
    `http:/${at}/slow`, ` http://${at}/`, `/%2F%2F${at}/`, `${at}/slow`, `localhost:${hub.chaosPort}/slow`,
  ];
  for (const path of attempts) {
    const response = await hub.ask(`/compare?path=${encodeURIComponent(path)}`, { accept: JSON_ACCEPT });
    t.equal(response.status, 400, `${path}: refused`);
  }
  // A chaos path whose query names another URL is fetched, from the chaos host only; redirects are not followed.
  const { report } = await compareJson(hub, `/redirect-location?mode=absolute-other-host&next=http://${at}/`);
  t.equal(report.chaos.connected_to, `127.0.0.1:${hub.chaosPort}`);
  t.equal(reached, 0, 'the listener we control saw no connection');
});

t.test('an endpoint without a twin: the chaos side, and a note', async (t) => {
  const lonely = defineChaosEndpoint({
    id: 'lonely',
    path: '/lonely',
    category: 'payload',
    summary: 'A test endpoint without a twin',
    params: {},
    counterpart: null,
    handle(ctx) {
      ctx.wire.head(200, chaosHead(ctx, 'text/plain', 5));
      ctx.wire.write(Buffer.from('alone'));
      ctx.wire.end();
    },
  });
  const hub = await startCompareHub(t, { extra: { chaos: [lonely] } });
  const { response, report } = await compareJson(hub, '/lonely');
  t.equal(response.status, 200);
  t.equal(report.twin, null);
  t.equal(report.twin_note, '/lonely has no twin: no other host serves a well-formed counterpart of it');
  t.same(report.differences, []);
  t.match(report.chaos, { status: 200, body: { text: 'alone' }, framing: { complete: true } });
  const html = (await hub.ask('/compare?path=%2Flonely', { accept: 'text/html' })).rest.toString();
  t.match(html, '<h2>No twin</h2>');
});

t.test('/compare belongs to the hub only; COMPARE_VIA connects both sides to one address', async (t) => {
  const hub = await startCompareHub(t);
  const onControl = await hub.ask('/compare?path=%2Fslow', { host: `control.localhost:${hub.controlPort}`, accept: JSON_ACCEPT });
  t.equal(onControl.status, 404, 'the control host keeps it a miss');
  t.match(JSON.parse(onControl.rest.toString()), { error: 'not_found' });

  // The front door routes by Host: through it, both sides go to one address with their own Host line.
  // Here that address is the chaos server, which answers the control host's name with 421.
  const via = await startCompareHub(t, {
    env: { COMPARE_VIA: `127.0.0.1:${hub.chaosPort}`, PUBLIC_BASE_URL: `http://chaos.localhost:${hub.chaosPort}`, PUBLIC_CONTROL_URL: `http://control.localhost:${hub.controlPort}` },
  });
  const { report } = await compareJson(via, '/status/418');
  t.equal(report.chaos.connected_to, `127.0.0.1:${hub.chaosPort}`);
  t.equal(report.chaos.status, 418);
  t.equal(report.twin?.connected_to, `127.0.0.1:${hub.chaosPort}`);
  t.match(report.twin?.request, `Host: control.localhost:${hub.controlPort}\r\n`, 'the twin\'s own Host line');
  t.equal(report.twin?.status, 421, 'which the chaos host refuses as another of our hosts');
});
