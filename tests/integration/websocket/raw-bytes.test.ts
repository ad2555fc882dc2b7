// The chaos host's WebSockets on a real socket, read byte for byte by a raw
// client (tests/helpers/ws-raw.ts): the 101 head and its X-Chaos-* lines,
// each lie's header bits, lengths and close payloads, and how the connection
// ends (close frame, FIN, reset). Issue 27; docs/websocket.md.
import t from 'tap';
import { startChaos, testConfig } from '../../helpers/servers.js';
import { ACCEPT, clientFrame, closeBody, handshakeRequest, headerOf, RawWs, type ServerFrame } from '../../helpers/ws-raw.js';

const { port } = await startChaos(t, { idleTimeoutMs: 2000 });

const TEXT = 0x1;
const BINARY = 0x2;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

async function open(path: string, headers: Readonly<Record<string, string>> = {}): Promise<{ ws: RawWs; head: string }> {
  const ws = await RawWs.connect(port, path, headers);
  t.teardown(() => ws.destroy());
  return { ws, head: await ws.waitHead() };
}

const text = (frame: ServerFrame | undefined): string => frame?.payload.toString('utf8') ?? '';

t.test('the 101 head: the handshake lines, a correct accept, and X-Chaos-* from the header helper', async (t) => {
  const { head } = await open('/ws/frames?mode=rsv1&after=2');
  t.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  t.equal(headerOf(head, 'Upgrade'), 'websocket');
  t.equal(headerOf(head, 'Connection'), 'Upgrade');
  t.equal(headerOf(head, 'Sec-WebSocket-Accept'), ACCEPT, 'RFC 6455 §1.3 example key');
  t.equal(headerOf(head, 'X-Chaos-Category'), 'websocket');
  t.equal(headerOf(head, 'X-Chaos-Endpoint'), '/ws/frames');
  t.equal(headerOf(head, 'X-Chaos-Mode'), 'rsv1');
  t.equal(headerOf(head, 'X-Chaos-After'), '2');
});

t.test('a plain GET, or another method, is a real 426 naming the upgrade, with no X-Chaos-* line', async (t) => {
  for (const path of ['/ws/frames', '/ws/close', '/ws/handshake', '/ws/ping-flood', '/ws/pong-lie', '/ws/deflate']) {
    const ws = await RawWs.connect(port, path, {}, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const head = await ws.waitHead();
    ws.destroy();
    t.match(head, /^HTTP\/1\.1 426 Upgrade Required\r\n/, `${path}: 426`);
    t.equal(headerOf(head, 'Upgrade'), 'websocket', `${path}: Upgrade: websocket`);
    t.notMatch(head, /X-Chaos-/i, `${path}: a real error`);
  }
  const post = await RawWs.connect(port, '', {}, 'POST /ws/frames HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n');
  t.match(await post.waitHead(), /^HTTP\/1\.1 405 /, 'POST is the router\'s 405');
  post.destroy();
  const badKey = await RawWs.connect(port, '/ws/frames', { 'Sec-WebSocket-Key': 'short' });
  t.match(await badKey.waitHead(), /^HTTP\/1\.1 400 /, 'a bad key is a 400');
  badKey.destroy();
  const version = await RawWs.connect(port, '/ws/frames', { 'Sec-WebSocket-Version': '8' });
  const versionHead = await version.waitHead();
  version.destroy();
  t.match(versionHead, /^HTTP\/1\.1 426 /);
  t.equal(headerOf(versionHead, 'Sec-WebSocket-Version'), '13', 'another version: 426 naming 13');
});

t.test('/ws/frames: `after` honest echoes, then the lie with its exact header bits', async (t) => {
  const expectations: [string, (f: ServerFrame) => boolean][] = [
    ['masked', (f) => f.masked && f.opcode === TEXT && text(f) === 'chaos:masked'],
    ['rsv1', (f) => f.rsv === 0x40 && f.opcode === TEXT],
    ['rsv2', (f) => f.rsv === 0x20 && f.opcode === TEXT],
    ['fragmented-ping', (f) => !f.fin && f.opcode === PING],
    ['oversized-ping', (f) => f.opcode === PING && f.payload.length === 126 && f.lengthBits === 16],
    ['invalid-utf8', (f) => f.opcode === TEXT && f.payload[19] === 0xff && !f.payload.subarray(0, 19).includes(0xff)],
    ['unknown-opcode', (f) => f.opcode === 3],
    ['orphan-continuation', (f) => f.opcode === 0 && f.fin],
    ['interleaved-fragments', (f) => f.opcode === TEXT && !f.fin],
    ['data-after-close', (f) => f.opcode === CLOSE && closeBody(f).code === 1000 && closeBody(f).reason.toString() === 'chaos:data-after-close'],
  ];
  for (const [mode, isLie] of expectations) {
    const { ws } = await open(`/ws/frames?mode=${mode}&after=1`);
    ws.send(clientFrame(TEXT, 'first'));
    const frames = await ws.waitFrames(2);
    const [echo, lie] = frames;
    t.ok(echo && !echo.masked && echo.fin && echo.rsv === 0 && echo.opcode === TEXT && text(echo) === 'first', `${mode}: an honest echo first`);
    t.ok(lie && isLie(lie), `${mode}: the lie`);
    if (mode === 'interleaved-fragments') t.same(frames.slice(1, 4).map((f) => [f.opcode, f.fin]), [[TEXT, false], [TEXT, true], [0, true]], 'a data frame inside the fragmented message');
    if (mode === 'data-after-close') {
      const [, , data] = await ws.waitFrames(3);
      t.ok(data?.opcode === TEXT, 'a text frame after the close frame');
    }
    ws.destroy();
  }
  const { ws } = await open('/ws/frames?mode=invalid-utf8&at=3');
  t.equal((await ws.waitFrames(1))[0]?.payload[3], 0xff, '`at` picks the byte');
});

t.test('/ws/close: the close payloads, the FIN and the reset', async (t) => {
  const closes: [string, number | undefined, string | undefined][] = [
    ['mode=clean&code=4001&reason=bye', 4001, 'chaos:clean bye'],
    ['mode=clean&code=1005', 1000, 'chaos:clean'],
    ['mode=reserved-code&code=1015', 1015, 'chaos:reserved-code'],
    ['mode=reserved-code', 1005, 'chaos:reserved-code'],
    ['mode=invalid-code&code=2999', 2999, 'chaos:invalid-code'],
    ['mode=invalid-code', 999, 'chaos:invalid-code'],
  ];
  for (const [query, code, reason] of closes) {
    const { ws, head } = await open(`/ws/close?${query}`);
    const [frame] = await ws.waitFrames(1);
    t.equal(frame?.opcode, CLOSE, `${query}: a close frame`);
    t.equal(frame && closeBody(frame).code, code, `${query}: code ${code}`);
    t.equal(frame && closeBody(frame).reason.toString(), reason, `${query}: reason`);
    t.equal(headerOf(head, 'X-Chaos-Close-Code'), String(code), `${query}: the 101 names the code`);
    // The client's answer ends it with our FIN.
    ws.send(clientFrame(CLOSE, Buffer.from([0x03, 0xe8])));
    t.equal(await ws.waitEnd(), 'fin', `${query}: FIN after the client's close`);
  }
  const one = await open('/ws/close?mode=one-byte-body');
  t.same((await one.ws.waitFrames(1))[0]?.payload, Buffer.from([0x03]), 'one-byte-body: a close body of one byte');
  const utf8 = await open('/ws/close?mode=invalid-utf8-reason');
  const bad = (await utf8.ws.waitFrames(1))[0];
  t.ok(bad && closeBody(bad).code === 1000 && closeBody(bad).reason.toString('latin1').startsWith('chaos:invalid-utf8-reason') && bad.payload.at(-1) === 0xff, 'invalid-utf8-reason: 0xFF in the reason');
  const fin = await open('/ws/close?mode=no-close-frame');
  t.equal(await fin.ws.waitEnd(), 'fin', 'no-close-frame: a FIN');
  t.same(fin.ws.frames.map((f) => f.opcode), [TEXT], 'no-close-frame: a message, no close frame');
  const reset = await open('/ws/close?mode=reset');
  t.equal(await reset.ws.waitEnd(), 'reset', 'reset: a TCP reset');
});

t.test('/ws/close?mode=never-closes: the client\'s close is ignored until the cap', async (t) => {
  const { port: capped } = await startChaos(t, { config: (await import('../../helpers/servers.js')).testConfig({ MAX_RESPONSE_MS: '2000' }) });
  const ws = await RawWs.connect(capped, '/ws/close?mode=never-closes');
  t.teardown(() => ws.destroy());
  await ws.waitHead();
  ws.send(clientFrame(CLOSE, Buffer.from([0x03, 0xe8])));
  t.equal(await ws.waitEnd(1000), 'timeout', 'no answer to the close within a second');
  t.equal(await ws.waitEnd(10_000), 'fin', 'the cap ends it with a FIN');
  t.notOk(ws.frames.some((f) => f.opcode === CLOSE), 'and never a close frame');
});

t.test('/ws/handshake: each lie in the head', async (t) => {
  const cases: [string, (head: string) => boolean][] = [
    ['bad-accept', (h) => headerOf(h, 'Sec-WebSocket-Accept') !== ACCEPT && /^HTTP\/1\.1 101 /.test(h)],
    ['protocol-not-offered', (h) => headerOf(h, 'Sec-WebSocket-Protocol') === 'chaos-not-offered'],
    ['extension-not-offered', (h) => headerOf(h, 'Sec-WebSocket-Extensions') === 'permessage-deflate'],
    ['status-200', (h) => /^HTTP\/1\.1 200 /.test(h) && headerOf(h, 'X-Chaos-Mode') === 'status-200'],
    ['no-upgrade-header', (h) => headerOf(h, 'Upgrade') === undefined && /^HTTP\/1\.1 101 /.test(h)],
    ['http-1.0-101', (h) => /^HTTP\/1\.0 101 /.test(h)],
  ];
  for (const [mode, check] of cases) {
    const { ws, head } = await open(`/ws/handshake?mode=${mode}`);
    t.ok(check(head), `${mode}: ${head.split('\r\n')[0]}`);
    t.equal(headerOf(head, 'X-Chaos-Category'), 'websocket', `${mode}: X-Chaos-* in the head`);
    ws.destroy();
  }
  const missing = await open('/ws/handshake?mode=protocol-missing', { 'Sec-WebSocket-Protocol': 'chat' });
  t.equal(headerOf(missing.head, 'Sec-WebSocket-Protocol'), undefined, 'protocol-missing: the offer is left unanswered');
  const offered = await open('/ws/handshake?mode=extension-not-offered', { 'Sec-WebSocket-Extensions': 'permessage-deflate' });
  t.equal(headerOf(offered.head, 'Sec-WebSocket-Extensions'), 'x-chaos-not-offered', 'extension-not-offered: another than the one offered');
  const slow = await RawWs.connect(port, '/ws/handshake?mode=slow-101');
  t.teardown(() => slow.destroy());
  const head = await slow.waitHead(15_000);
  const took = performance.now() - slow.openedAt;
  t.ok(took > 3000, `slow-101: the head took ${Math.round(took)} ms (5 s planned)`);
  t.equal(headerOf(head, 'Sec-WebSocket-Accept'), ACCEPT, 'slow-101: an honest head, only slow');
  slow.send(clientFrame(TEXT, 'after a slow head'));
  t.equal(text((await slow.waitFrames(1))[0]), 'after a slow head', 'slow-101: then an echo');
});

t.test('/ws/ping-flood: `count` pings of `size` bytes, then a message, once', async (t) => {
  const { ws, head } = await open('/ws/ping-flood?count=10000&size=125');
  t.equal(headerOf(head, 'X-Chaos-Pings'), '10000');
  const frames = await ws.waitFrames(10_001, 20_000);
  const pings = frames.filter((f) => f.opcode === PING);
  t.equal(pings.length, 10_000, '10,000 pings');
  t.ok(pings.every((f) => f.payload.length === 125 && f.fin), 'each a whole 125-byte ping');
  t.equal(frames[10_000]?.opcode, TEXT, 'then a text message');
  ws.send(clientFrame(TEXT, 'echo?'));
  const after = await ws.waitFrames(10_002);
  t.equal(text(after[10_001]), 'echo?', 'then an echo, no second flood');
  const clamped = await open('/ws/ping-flood?count=20000&size=200');
  t.match(headerOf(clamped.head, 'X-Chaos-Clamped') ?? '', /count=10000.*size=125|size=125.*count=10000/, 'bounds clamp and say so');
});

t.test('every numeric parameter below its range is clamped, and the 101 says so', async (t) => {
  const cases: [string, string[]][] = [
    ['/ws/frames?after=-1&at=-1', ['after=0', 'at=0']],
    ['/ws/close?code=-1', ['code=0']],
    ['/ws/ping-flood?count=0&size=-1', ['count=1', 'size=0']],
  ];
  for (const [path, reported] of cases) {
    const { ws, head } = await open(path);
    t.match(head, /^HTTP\/1\.1 101 /, `${path}: 101`);
    t.same((headerOf(head, 'X-Chaos-Clamped') ?? '').split(', ').sort(), reported, `${path}: ${reported.join(', ')}`);
    ws.destroy();
  }
});

t.test('/ws/pong-lie: unsolicited pongs, and a pong with the wrong payload', async (t) => {
  const { ws } = await open('/ws/pong-lie');
  const unasked = await ws.waitFrames(3);
  t.same(unasked.map((f) => f.opcode), [PONG, PONG, PONG], 'three pongs nobody asked for');
  ws.send(clientFrame(PING, 'mine'));
  const [, , , pong] = await ws.waitFrames(4);
  t.equal(pong?.opcode, PONG);
  t.not(text(pong), 'mine', 'the pong does not carry the ping\'s payload');
});

t.test('/ws/deflate: the extension line and the compressed lies', async (t) => {
  const offer = { 'Sec-WebSocket-Extensions': 'permessage-deflate; client_max_window_bits' };
  const window = await open('/ws/deflate?mode=bad-window-bits', offer);
  t.equal(headerOf(window.head, 'Sec-WebSocket-Extensions'), 'permessage-deflate; server_max_window_bits=7');
  const inflate = await open('/ws/deflate?mode=bad-inflate', offer);
  t.equal(headerOf(inflate.head, 'Sec-WebSocket-Extensions'), 'permessage-deflate');
  const [compressed] = await inflate.ws.waitFrames(1);
  t.ok(compressed && compressed.rsv === 0x40 && compressed.opcode === TEXT, 'a compressed text frame (RSV1)');
  const control = await open('/ws/deflate?mode=control-rsv1', offer);
  const [ping] = await control.ws.waitFrames(1);
  t.ok(ping && ping.rsv === 0x40 && ping.opcode === PING, 'RSV1 on a ping');
});

t.test('the echo and the client\'s rules: binary and fragmented echo, pong, 1002 for an unmasked frame, 1009 past 64 KiB, 1007 for bad UTF-8', async (t) => {
  const { ws } = await open('/ws/pong-lie');
  await ws.waitFrames(3);
  ws.send(Buffer.concat([clientFrame(BINARY, Buffer.alloc(300, 7), { fin: false }), clientFrame(0, Buffer.alloc(65_536, 7))]));
  const echoed = (await ws.waitFrames(4))[3];
  t.ok(echoed && echoed.opcode === BINARY && echoed.payload.length === 65_836 && echoed.lengthBits === 64, 'a fragmented 65,836-byte message echoed whole, 64-bit length');
  const rules: [string, Buffer, number][] = [
    ['unmasked', clientFrame(TEXT, 'x', { masked: false }), 1002],
    ['over 64 KiB', clientFrame(BINARY, Buffer.alloc(64 * 1024 + 1)), 1009],
    ['bad UTF-8', clientFrame(TEXT, Buffer.from([0xff])), 1007],
  ];
  for (const [name, frame, code] of rules) {
    const { ws } = await open('/ws/frames?mode=masked&after=5');
    ws.send(frame);
    const [close] = await ws.waitFrames(1);
    t.ok(close?.opcode === CLOSE && closeBody(close).code === code, `${name}: close ${code}`);
    t.equal(await ws.waitEnd(), 'fin', `${name}: then our FIN`);
  }
  const honest = await open('/ws/frames?mode=masked&after=5');
  honest.ws.send(clientFrame(PING, 'p'));
  t.same((await honest.ws.waitFrames(1)).map((f) => [f.opcode, text(f)]), [[PONG, 'p']], 'a ping gets its pong');
  honest.ws.send(clientFrame(CLOSE, Buffer.from([0x0f, 0xa1, 0x68])));
  const [, reply] = await honest.ws.waitFrames(2);
  t.ok(reply?.opcode === CLOSE && closeBody(reply).code === 4001, 'the client\'s close answered with its code');
  t.equal(await honest.ws.waitEnd(), 'fin');
});

// MAX_HELD_PER_IP=0: no store to ask, so the 101 goes out within the data event that brought the request.
const { port: uncapped } = await startChaos(t, { config: testConfig({ MAX_HELD_PER_IP: '0' }) });

t.test('with the upgrade answered at once, the socket is read on after the 101', async (t) => {
  const ws = await RawWs.connect(uncapped, '/ws/frames?mode=masked&after=1');
  t.teardown(() => ws.destroy());
  await ws.waitHead();
  ws.send(clientFrame(TEXT, 'later'));
  t.equal(text((await ws.waitFrames(1, 5_000))[0]), 'later', 'a frame sent after the 101 is echoed');
});

t.test('frames sent in the packet of the handshake (bytes after the request head) are read after the 101', async (t) => {
  const path = '/ws/frames?mode=masked&after=2';
  const packet = Buffer.concat([Buffer.from(handshakeRequest(path), 'latin1'), clientFrame(TEXT, 'one'), clientFrame(TEXT, 'two')]);
  const at = await RawWs.connect(uncapped, path, {}, packet);
  t.teardown(() => at.destroy());
  t.same((await at.waitFrames(2)).slice(0, 2).map(text), ['one', 'two'], 'with the upgrade answered at once too');
  const ws = await RawWs.connect(port, path, {}, packet);
  t.teardown(() => ws.destroy());
  t.match(await ws.waitHead(), /^HTTP\/1\.1 101 /);
  const frames = await ws.waitFrames(3);
  t.same(frames.slice(0, 2).map((f) => [f.opcode, text(f)]), [[TEXT, 'one'], [TEXT, 'two']], 'both echoed, in order');
  t.equal(frames[2]?.masked, true, 'then the lie: after=2 counted them');
  // Split anywhere inside the second frame: the rest arrives in a later packet.
  const split = Buffer.concat([Buffer.from(handshakeRequest(path), 'latin1'), clientFrame(TEXT, 'one'), clientFrame(TEXT, 'two').subarray(0, 3)]);
  const late = await RawWs.connect(port, path, {}, split);
  t.teardown(() => late.destroy());
  await late.waitHead();
  late.send(clientFrame(TEXT, 'two').subarray(3));
  t.same((await late.waitFrames(2)).slice(0, 2).map(text), ['one', 'two'], 'a frame begun with the handshake completes later');
});

t.test('an Upgrade request answered without a 101 leaves what follows it to HTTP (pipelined)', async (t) => {
  const request = (target: string, upgrade: boolean): string =>
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${upgrade ? 'Connection: Upgrade\r\nUpgrade: h2c\r\n' : ''}\r\n`;
  const ws = await RawWs.connect(port, '', {}, request('/status/200', true) + request('/status/201', false));
  t.teardown(() => ws.destroy());
  await ws.waitHead();
  const deadline = performance.now() + 10_000;
  while (!/HTTP\/1\.1 201 /.test(ws.afterHead.toString('latin1')) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.match(ws.afterHead.toString('latin1'), /HTTP\/1\.1 201 /, 'the second request answered on the same connection');
});
