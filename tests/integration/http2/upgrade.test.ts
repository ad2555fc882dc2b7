// The h2c upgrade on the chaos port (RFC 7540 §3.2), byte by byte on a raw
// socket (tests/helpers/h2-raw.ts): an HTTP/1.1 request to an /h2/* lie with
// Upgrade: h2c gets the 101, our SETTINGS first, the lie on stream 1, and the
// connection goes on as HTTP/2 once the client's preface comes; HTTP2-Settings
// is applied (and a bad one is a real 400); the /h2/upgrade lies
// (lie-101-then-h1, no-settings-frame). Issue 28; docs/http2.md.
import t from 'tap';
import { ERROR, FLAG, SETTING } from '../../../services/chaos/http2/frames.js';
import { endedOn, field, fieldsOf, FRAME, goawayOf, has, headersOn, ofType, RawH2, type RawFrame } from '../../helpers/h2-raw.js';
import { startChaos } from '../../helpers/servers.js';

const { port } = await startChaos(t, { idleTimeoutMs: 2000 });

/** A SETTINGS payload as HTTP2-Settings carries it: base64url, no padding. */
const settingsValue = (settings: readonly (readonly [number, number])[]): string => {
  const payload = Buffer.alloc(settings.length * 6);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6);
    payload.writeUInt32BE(value, i * 6 + 2);
  });
  return payload.toString('base64url');
};

const upgradeRequest = (target: string, http2Settings: string | undefined = settingsValue([[SETTING.MAX_CONCURRENT_STREAMS, 100]]), more = '', connection = 'Upgrade, HTTP2-Settings'): string =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ${connection}\r\nUpgrade: h2c\r\n` +
  `${http2Settings === undefined ? '' : `HTTP2-Settings: ${http2Settings}\r\n`}${more}\r\n`;

/** Writes `request`; waits until `done` holds for the frames (else the caller waits for what it needs). */
async function upgrade(request: string, done?: (frames: readonly RawFrame[]) => boolean): Promise<RawH2> {
  const client = await RawH2.upgrade(port, request);
  t.teardown(() => client.destroy());
  if (done) await client.until(done);
  return client;
}
const bodyOn = (client: RawH2, id: number): string => Buffer.concat(ofType(client.frames, FRAME.DATA).filter((f) => f.streamId === id).map((f) => f.payload)).toString();
const status = (head: string | undefined): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]);
const line = (head: string | undefined, name: string): string | undefined => new RegExp(`\r\n${name}: ([^\r]*)`, 'i').exec(head ?? '')?.[1];

t.test('an /h2/* lie: 101, our SETTINGS first, the lie on stream 1; the client\'s preface next, then HTTP/2 goes on', async (t) => {
  const client = await upgrade(upgradeRequest('/h2/rst?at=6&code=8'), has(FRAME.RST_STREAM));
  t.match(client.head, /^HTTP\/1\.1 101 Switching Protocols\r\n/, 'the 101');
  t.equal(line(client.head, 'Upgrade'), 'h2c');
  t.equal(line(client.head, 'Connection'), 'Upgrade');
  const [first] = client.frames;
  t.same([first?.type, first?.flags, first?.streamId], [FRAME.SETTINGS, 0, 0], 'the server preface: SETTINGS, the first frame');
  t.notOk(client.frames.some((f) => f.type === FRAME.SETTINGS && f.flags === FLAG.ACK), 'no ACK: the 101 acknowledges HTTP2-Settings');
  const fields = headersOn(client, 1);
  t.same(fields[0], [':status', '200'], 'the response on stream 1');
  t.equal(field(fields, 'x-chaos-endpoint'), '/h2/rst');
  t.equal(field(fields, 'x-chaos-rst-code'), '8');
  t.equal(ofType(client.frames, FRAME.DATA).reduce((n, f) => n + f.payload.length, 0), 6, '`at` bytes');
  const [rst] = ofType(client.frames, FRAME.RST_STREAM);
  t.same([rst?.streamId, rst?.payload.readUInt32BE(0)], [1, ERROR.CANCEL], 'then the lie: RST_STREAM on stream 1 with `code`');
  client.preface([[SETTING.INITIAL_WINDOW_SIZE, 1 << 20]]);
  client.request('/status/418', 3);
  await client.until(endedOn(3));
  t.ok(client.frames.some((f) => f.type === FRAME.SETTINGS && f.flags === FLAG.ACK), 'the preface\'s SETTINGS acknowledged');
  t.same(headersOn(client, 3)[0], [':status', '418'], 'stream 3 answered over HTTP/2');
});

t.test('what follows the 101 must be the client\'s preface: anything else is GOAWAY PROTOCOL_ERROR', async (t) => {
  const client = await upgrade(upgradeRequest('/h2/frames?mode=unknown-type'), endedOn(1));
  t.equal(field(headersOn(client, 1), 'x-chaos-mode'), 'unknown-type', 'the lie on stream 1');
  client.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await client.until(has(FRAME.GOAWAY));
  t.same(goawayOf(ofType(client.frames, FRAME.GOAWAY)[0]!), { last: 1, code: ERROR.PROTOCOL_ERROR, debug: 'bad connection preface' });
});

t.test('HTTP2-Settings are the client\'s SETTINGS: its window bounds stream 1 (/h2/flow?mode=exceed-window)', async (t) => {
  const client = await upgrade(upgradeRequest('/h2/flow?mode=exceed-window', settingsValue([[SETTING.INITIAL_WINDOW_SIZE, 100]])), endedOn(1));
  t.equal(field(headersOn(client, 1), 'x-chaos-window'), '100');
  t.equal(ofType(client.frames, FRAME.DATA).reduce((n, f) => n + f.payload.length, 0), 101, 'the window HTTP2-Settings gave + 1');
  const push = await upgrade(upgradeRequest('/h2/push?mode=when-disabled', settingsValue([[SETTING.ENABLE_PUSH, 0]]), '', 'Upgrade, HTTP2-Settings, keep-alive'), endedOn(1));
  t.equal(field(headersOn(push, 1), 'x-chaos-client-enable-push'), '0', 'ENABLE_PUSH 0 read from HTTP2-Settings (another Connection token beside them)');
});

t.test('a body on the upgrade request is read first (bounded as HTTP/1.1\'s); stream 1 is half-closed: /h2/upload-stall answers', async (t) => {
  const request = upgradeRequest('/h2/upload-stall?ms=100', undefined, 'Content-Length: 5\r\n').replace('GET', 'POST') + 'hello';
  const client = await upgrade(request, endedOn(1));
  t.equal(status(client.head), 101);
  t.equal(field(headersOn(client, 1), 'x-chaos-stall-ms'), '100', 'the answer on stream 1: its request had ended');
  // Over prior knowledge alike: HEADERS with END_STREAM end the request, so a GET is answered after `ms` (not at the connection's cap).
  const pk = await RawH2.connect(port);
  t.teardown(() => pk.destroy());
  pk.request('/h2/upload-stall?ms=100');
  await pk.until(endedOn(1), 3000);
  t.equal(field(headersOn(pk, 1), 'x-chaos-stall-ms'), '100', 'a prior-knowledge GET: answered after `ms`');
  const big = await upgrade(upgradeRequest('/h2/rst', undefined, `Content-Length: ${2 * 1024 * 1024}\r\n`).replace('GET', 'POST'));
  await big.until(() => big.head !== undefined);
  t.equal(status(big.head), 413, 'a body past HTTP/1.1\'s bound: the real 413, no upgrade');
});

t.test('a bad upgrade is a real 400 (no X-Chaos-*), then a close', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['not base64url', upgradeRequest('/h2/rst', 'AA!A'), /not base64url/],
    ['not a multiple of 6 bytes', upgradeRequest('/h2/rst', 'AAAA'), /decodes to 3 bytes/],
    ['ENABLE_PUSH 2', upgradeRequest('/h2/rst', settingsValue([[SETTING.ENABLE_PUSH, 2]])), /SETTINGS_ENABLE_PUSH above 1/],
    ['MAX_FRAME_SIZE 1000', upgradeRequest('/h2/rst', settingsValue([[SETTING.MAX_FRAME_SIZE, 1000]])), /SETTINGS_MAX_FRAME_SIZE out of range/],
    ['33 settings', upgradeRequest('/h2/rst', settingsValue(Array.from({ length: 33 }, () => [SETTING.MAX_CONCURRENT_STREAMS, 100] as const))), /more than 32 settings/],
    ['two HTTP2-Settings fields', upgradeRequest('/h2/rst', 'AAMAAABk', 'HTTP2-Settings: AAMAAABk\r\n'), /more than one HTTP2-Settings/],
    ['no HTTP2-Settings', 'GET /h2/rst HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n\r\n', /carries an HTTP2-Settings field/],
    ['Connection without HTTP2-Settings', upgradeRequest('/h2/rst', 'AAMAAABk', '', 'Upgrade'), /names Upgrade and HTTP2-Settings/],
  ];
  for (const [name, request, reason] of cases) {
    const client = await upgrade(request);
    await client.until(() => client.ended, 3000);
    t.equal(status(client.head), 400, name);
    t.notMatch(client.head, /X-Chaos-/i, `${name}: no X-Chaos-*`);
    t.match(JSON.parse(client.afterHead.toString()), { error: 'bad_request', reason }, `${name}: the reason`);
    t.ok(client.ended, `${name}: closed`);
  }
  const empty = await upgrade(upgradeRequest('/h2/frames?mode=unknown-type', ''), endedOn(1));
  t.equal(status(empty.head), 101, 'an empty HTTP2-Settings is a SETTINGS frame with no settings: upgraded');
});

t.test('not upgraded: HTTP/1.0, an endpoint served over HTTP/1.1, an unknown /h2/ path', async (t) => {
  const old = await upgrade(upgradeRequest('/h2/rst').replace('HTTP/1.1', 'HTTP/1.0'));
  await old.until(() => old.ended, 3000);
  t.equal(status(old.head?.replace('HTTP/1.0', 'HTTP/1.1')), 421, 'HTTP/1.0: the Upgrade ignored (RFC 9110 §7.8), the /h2/* 421');
  const ordinary = await upgrade(upgradeRequest('/status/200') + 'GET /status/204 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await ordinary.until(() => /HTTP\/1\.1 204/.test(ordinary.afterHead.toString('latin1')), 3000);
  t.equal(status(ordinary.head), 200, '/status/200: its HTTP/1.1 lie, the Upgrade ignored');
  t.match(ordinary.afterHead.toString('latin1'), /HTTP\/1\.1 204 No Content\r\n/, 'and the next request on the connection is HTTP/1.1');
  const unknown = await upgrade(upgradeRequest('/h2/nothing-here'));
  await unknown.until(() => unknown.head !== undefined, 3000);
  t.equal(status(unknown.head), 404, 'an /h2/ path we do not serve: the catalog\'s 404');
});

t.test('/h2/upgrade?mode=lie-101-then-h1: 101, then an HTTP/1.1 response instead of frames, then a FIN', async (t) => {
  const client = await upgrade(upgradeRequest('/h2/upgrade?mode=lie-101-then-h1'));
  await client.until(() => client.ended, 3000);
  t.match(client.head, /^HTTP\/1\.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n/);
  t.equal(line(client.head, 'X-Chaos-Mode'), 'lie-101-then-h1', 'the 101 names the lie');
  t.equal(line(client.head, 'X-Chaos-Category'), 'http2');
  const rest = client.afterHead.toString('latin1');
  t.match(rest, /^HTTP\/1\.1 200 OK\r\n/, 'HTTP/1.1 where the server\'s SETTINGS frame was due');
  t.match(rest, /\r\nConnection: close\r\n/);
  t.same(JSON.parse(rest.slice(rest.indexOf('\r\n\r\n') + 4)), { endpoint: '/h2/upgrade', mode: 'lie-101-then-h1' });
  t.ok(client.ended, 'then the connection closes');
});

t.test('/h2/upgrade?mode=no-settings-frame: 101, then HEADERS and DATA on stream 1 with no SETTINGS before them', async (t) => {
  const client = await upgrade(upgradeRequest('/h2/upgrade?mode=no-settings-frame'), has(FRAME.GOAWAY));
  t.equal(status(client.head), 101);
  t.equal(line(client.head, 'X-Chaos-Mode'), 'no-settings-frame');
  t.same(client.frames.map((f) => [f.type, f.flags, f.streamId]), [[FRAME.HEADERS, FLAG.END_HEADERS, 1], [FRAME.DATA, FLAG.END_STREAM, 1], [FRAME.GOAWAY, 0, 0]], 'HEADERS first: no SETTINGS at all');
  t.equal(field(headersOn(client, 1), 'x-chaos-mode'), 'no-settings-frame');
  t.same(JSON.parse(bodyOn(client, 1)), { endpoint: '/h2/upgrade', mode: 'no-settings-frame' });
  t.same(goawayOf(ofType(client.frames, FRAME.GOAWAY)[0]!), { last: 1, code: 0, debug: 'chaos:no-settings-frame' });
  await client.until(() => client.ended, 3000);
  t.ok(client.ended, 'then a FIN');
});

t.test('/h2/upgrade without an upgrade: HTTP/1.1 is the real 426 naming h2c; prior knowledge a 200 saying there is no upgrade to lie about', async (t) => {
  const plain = await upgrade('GET /h2/upgrade HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  await plain.until(() => plain.ended, 3000);
  t.equal(status(plain.head), 426);
  t.equal(line(plain.head, 'Upgrade'), 'h2c');
  t.notMatch(plain.head, /X-Chaos-/i, 'a real error');
  const bad = await upgrade(upgradeRequest('/h2/upgrade?mode=no-settings-frame', 'AAAA'));
  await bad.until(() => bad.head !== undefined, 3000);
  t.equal(status(bad.head), 400, 'a bad HTTP2-Settings: the real 400 here too');
  const h2 = await RawH2.connect(port);
  t.teardown(() => h2.destroy());
  h2.request('/h2/upgrade?mode=no-settings-frame');
  await h2.until(endedOn(1));
  t.same(headersOn(h2, 1)[0], [':status', '200']);
  t.equal(field(headersOn(h2, 1), 'x-chaos-mode'), 'no-settings-frame');
  t.match(JSON.parse(bodyOn(h2, 1)), { upgraded: false });
});

t.test('the upgrade\'s stream 1 counts: the client opening stream 1 again is a connection error', async (t) => {
  const client = await upgrade(upgradeRequest('/h2/frames?mode=unknown-type'), endedOn(1));
  client.preface();
  client.request('/status/200', 1);
  await client.until(has(FRAME.GOAWAY));
  t.same(goawayOf(ofType(client.frames, FRAME.GOAWAY)[0]!), { last: 1, code: ERROR.PROTOCOL_ERROR, debug: 'HEADERS opening stream 1' });
});
