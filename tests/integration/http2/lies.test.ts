// The second pass of the chaos host's HTTP/2 lies on a real socket, frame by
// frame (tests/helpers/h2-raw.ts): /h2/stall (a held response), the SETTINGS
// lies never-ack and header-table-shrink-lie, /h2/flow, /h2/upload-stall and
// /h2/push, each with its frame types, flags, stream ids and error codes.
// Issue 28; docs/http2.md.
import t from 'tap';
import { DEFAULT_WINDOW, ERROR, FLAG, frame, MAX_WINDOW, pingFrame, SETTING, windowUpdateFrame } from '../../../services/chaos/http2/frames.js';
import { HpackDecoder } from '../../../services/chaos/http2/hpack.js';
import { endedOn, field, fieldsOf, FRAME, goawayOf, has, headersOn, ofType, RawH2, type RawFrame } from '../../helpers/h2-raw.js';
import { startChaos, testConfig } from '../../helpers/servers.js';

const { port } = await startChaos(t, { idleTimeoutMs: 5000, config: testConfig({ MAX_RESPONSE_MS: '3000' }) });

async function open(settings: readonly (readonly [number, number])[] = []): Promise<RawH2> {
  const client = await RawH2.connect(port, settings);
  t.teardown(() => client.destroy());
  return client;
}
async function get(path: string, done: (frames: readonly RawFrame[]) => boolean, settings: readonly (readonly [number, number])[] = []): Promise<RawH2> {
  const client = await open(settings);
  client.request(path);
  await client.until(done);
  return client;
}
const settingsValues = (f: RawFrame): Map<number, number> => {
  const values = new Map<number, number>();
  for (let at = 0; at < f.payload.length; at += 6) values.set(f.payload.readUInt16BE(at), f.payload.readUInt32BE(at + 2));
  return values;
};

t.test('/h2/stall: HEADERS promising more, `after` bytes, then nothing until MAX_RESPONSE_MS', async (t) => {
  const client = await open();
  const started = Date.now();
  client.request('/h2/stall?after=4');
  await client.until(has(FRAME.DATA));
  const fields = headersOn(client, 1);
  t.equal(field(fields, 'x-chaos-stall-after'), '4');
  t.ok(Number(field(fields, 'content-length')) > 4, 'the length promises more than comes');
  await client.until((f) => has(FRAME.RST_STREAM)(f) || has(FRAME.GOAWAY)(f), 8000);
  t.ok(Date.now() - started >= 2700, 'the stream stayed open until the cap');
  t.equal(ofType(client.frames, FRAME.DATA).reduce((n, f) => n + f.payload.length, 0), 4, 'exactly `after` bytes');
  t.notOk(endedOn(1)(client.frames), 'never END_STREAM');
});

t.test('/h2/stall counts as a held response: past MAX_HELD_PER_IP the next is the real 429, and the slot comes back', async (t) => {
  const held = await startChaos(t, { config: testConfig({ MAX_HELD_PER_IP: '1', MAX_RESPONSE_MS: '60000' }) });
  const first = await RawH2.connect(held.port);
  first.request('/h2/stall?after=2');
  await first.until(has(FRAME.DATA));
  first.request('/h2/stall?after=2', 3);
  await first.until(endedOn(3));
  const refused = headersOn(first, 3);
  t.same(refused[0], [':status', '429']);
  t.notOk(refused.some(([name]) => name.startsWith('x-chaos-')), 'a real limit, no x-chaos-*');
  first.destroy();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const second = await RawH2.connect(held.port);
  t.teardown(() => second.destroy());
  second.request('/h2/stall?after=2');
  await second.until(has(FRAME.DATA));
  t.same(headersOn(second, 1)[0], [':status', '200'], 'the closed stream gave its slot back');
});

t.test('/h2/settings?mode=never-ack: the client\'s SETTINGS gets no ACK; HEADERS at once, the body after the hold', async (t) => {
  const started = Date.now();
  const client = await get('/h2/settings?mode=never-ack', endedOn(1));
  t.ok(endedOn(1)(client.frames) && Date.now() - started >= 1800, 'the body a second inside MAX_RESPONSE_MS (3 s here)');
  t.equal(ofType(client.frames, FRAME.SETTINGS).filter((f) => (f.flags & FLAG.ACK) !== 0).length, 0, 'no SETTINGS ACK');
  t.equal(field(headersOn(client, 1), 'x-chaos-mode'), 'never-ack');
  client.socket.write(frame(FRAME.SETTINGS, 0, 0, Buffer.from([0, SETTING.ENABLE_PUSH, 0, 0, 0, 0])));
  await client.until(() => false, 500);
  t.equal(ofType(client.frames, FRAME.SETTINGS).filter((f) => (f.flags & FLAG.ACK) !== 0).length, 0, 'nor to a later SETTINGS');
  const honest = await get('/status/200', endedOn(1));
  t.equal(ofType(honest.frames, FRAME.SETTINGS).filter((f) => (f.flags & FLAG.ACK) !== 0).length, 1, 'another request\'s SETTINGS is acknowledged');
});

t.test('/h2/settings?mode=header-table-shrink-lie: an entry one octet larger than the acknowledged table, then index 62', async (t) => {
  const client = await get('/h2/settings?mode=header-table-shrink-lie', has(FRAME.GOAWAY), [[SETTING.HEADER_TABLE_SIZE, 256]]);
  t.ok(ofType(client.frames, FRAME.SETTINGS).some((f) => f.flags === FLAG.ACK), 'the client\'s 256 was acknowledged');
  const block = client.frames.find((f) => f.type === FRAME.HEADERS)!;
  t.equal(block.payload.at(-1), 0x80 | 62, 'the block ends naming dynamic index 62');
  const decoder = new HpackDecoder({ maxTableSize: 256, maxListBytes: 64 * 1024 });
  t.throws(() => decoder.decode(block.payload), /index/, 'a decoder held to 256 finds nothing at 62');
  const lenient = new HpackDecoder({ maxTableSize: 4096, maxListBytes: 64 * 1024 });
  const fields = lenient.decode(block.payload);
  t.equal(field(fields, 'x-chaos-header-table-size'), '256');
  const entry = fields.filter(([n]) => n === 'x-chaos-table-entry');
  t.equal(entry[0]![0].length + entry[0]![1].length + 32, 257, 'the entry is the table size + 1');
  t.equal(entry.length, 2, 'a decoder with a larger table would have read it twice');
  t.equal(goawayOf(ofType(client.frames, FRAME.GOAWAY)[0]!).debug, 'chaos:header-table-shrink-lie');
});

t.test('/h2/flow?mode=window-overflow: WINDOW_UPDATE 2^31-1 on the connection after HEADERS', async (t) => {
  const client = await get('/h2/flow?mode=window-overflow', has(FRAME.GOAWAY));
  const update = client.frames.find((f) => f.type === FRAME.WINDOW_UPDATE && f.streamId === 0 && f.payload.readUInt32BE(0) === MAX_WINDOW);
  t.ok(update, 'WINDOW_UPDATE 2^31-1 on stream 0');
  t.ok(client.frames.indexOf(update!) > client.frames.findIndex((f) => f.type === FRAME.HEADERS), 'after the fields');
  t.same(goawayOf(ofType(client.frames, FRAME.GOAWAY)[0]!), { last: 1, code: 0, debug: 'chaos:window-overflow' });
});

t.test('/h2/flow?mode=exceed-window: one byte more DATA than the window the client advertised', async (t) => {
  const client = await get('/h2/flow?mode=exceed-window', endedOn(1), [[SETTING.INITIAL_WINDOW_SIZE, 1000]]);
  const fields = headersOn(client, 1);
  t.equal(field(fields, 'x-chaos-window'), '1000');
  t.equal(ofType(client.frames, FRAME.DATA).reduce((n, f) => n + f.payload.length, 0), 1001);
  const wide = await get('/h2/flow?mode=exceed-window', endedOn(1));
  t.equal(ofType(wide.frames, FRAME.DATA).reduce((n, f) => n + f.payload.length, 0), DEFAULT_WINDOW + 1, 'the default window + 1');
  t.ok(ofType(wide.frames, FRAME.DATA).every((f) => f.payload.length <= 16_384), 'within the frame size');
});

t.test('/h2/flow?mode=exceed-window lowers our count of the connection window as the client\'s: a second stream waits for WINDOW_UPDATE, then ends', async (t) => {
  // Wide stream windows, the connection's at 65,535: the lie sends 65,536 and leaves the connection's window at -1 on both sides.
  const client = await get('/h2/flow?mode=exceed-window', endedOn(1), [[SETTING.INITIAL_WINDOW_SIZE, 1_000_000]]);
  t.equal(field(headersOn(client, 1), 'x-chaos-window'), String(DEFAULT_WINDOW));
  const dataOn = (id: number): number => ofType(client.frames, FRAME.DATA).filter((f) => f.streamId === id).reduce((n, f) => n + f.payload.length, 0);
  t.equal(dataOn(1), DEFAULT_WINDOW + 1);
  // The client's PING is answered after anything written with the second stream's HEADERS.
  const pinged = (frames: readonly RawFrame[]): boolean => frames.some((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) !== 0);
  client.request('/bytes?mode=wrong-content-type&n=4000', 3);
  await client.until((f) => f.some((x) => x.type === FRAME.HEADERS && x.streamId === 3));
  client.socket.write(pingFrame(Buffer.alloc(8), false));
  await client.until(pinged);
  await client.until(() => false, 200);
  t.equal(dataOn(3), 0, 'no DATA while the connection\'s window is -1');
  client.socket.write(windowUpdateFrame(0, 1001));
  await client.until(() => dataOn(3) >= 1000);
  await client.until(() => false, 200);
  t.equal(dataOn(3), 1000, '+1,001 opens 1,000 bytes, no more');
  client.socket.write(windowUpdateFrame(0, 10_000));
  await client.until(endedOn(3));
  t.equal(dataOn(3), 4000, 'the rest after +10,000, and END_STREAM: no stream stuck');
  t.notOk(has(FRAME.GOAWAY)(client.frames), 'no connection error');
});

t.test('every DATA a lie writes itself counts against the connection\'s window: a later stream\'s x-chaos-window says our count', async (t) => {
  // The lies after which the connection lives on; each ends with the frame named. Wide stream windows: the connection's binds.
  const LIVE: readonly (readonly [path: string, last: (frames: readonly RawFrame[]) => boolean])[] = [
    ['/h2/frames?mode=data-after-end-stream', (f) => f.some((x) => x.type === FRAME.DATA && x.streamId === 1 && (x.flags & FLAG.END_STREAM) === 0)],
    ['/h2/frames?mode=headers-on-closed-stream', (f) => ofType(f, FRAME.HEADERS).length === 2],
    ['/h2/frames?mode=unknown-type', endedOn(1)],
    ['/h2/headers?mode=uppercase', endedOn(1)],
    ['/h2/push?mode=push-then-rst', has(FRAME.RST_STREAM)],
    ['/h2/push?mode=when-disabled', endedOn(2)],
  ];
  for (const [path, last] of LIVE) {
    const client = await get(path, last, [[SETTING.INITIAL_WINDOW_SIZE, 1_000_000]]);
    const received = ofType(client.frames, FRAME.DATA).reduce((n, f) => n + f.payload.length, 0);
    client.request('/h2/flow?mode=exceed-window', 3);
    await client.until((f) => f.some((x) => x.type === FRAME.HEADERS && x.streamId === 3));
    t.equal(field(headersOn(client, 3), 'x-chaos-window'), String(DEFAULT_WINDOW - received), `${path}: 65,535 − the ${received} DATA bytes it sent`);
  }
});

t.test('/h2/flow?mode=zero-window-forever: WINDOW_UPDATE 0 on the stream, no window for the body, the answer after the hold', async (t) => {
  const client = await open();
  client.request('/h2/flow?mode=zero-window-forever&ms=800', 1, 'POST', false);
  await client.until(has(FRAME.WINDOW_UPDATE));
  const zero = ofType(client.frames, FRAME.WINDOW_UPDATE).find((f) => f.streamId === 1);
  t.equal(zero?.payload.readUInt32BE(0), 0, 'an increment of 0 on stream 1');
  client.socket.write(frame(FRAME.DATA, 0, 1, Buffer.alloc(1000, 0x61)));
  await client.until(endedOn(1), 8000);
  const grants = ofType(client.frames, FRAME.WINDOW_UPDATE);
  t.notOk(grants.some((f) => f.streamId === 1 && f.payload.readUInt32BE(0) > 0), 'the stream\'s window never comes back');
  t.ok(grants.some((f) => f.streamId === 0 && f.payload.readUInt32BE(0) === 1000), 'the connection\'s does');
  t.equal(field(headersOn(client, 1), 'x-chaos-mode'), 'zero-window-forever');
  await client.until(has(FRAME.RST_STREAM), 2000);
  t.equal(ofType(client.frames, FRAME.RST_STREAM)[0]?.payload.readUInt32BE(0), ERROR.NO_ERROR, 'the unfinished body is reset with NO_ERROR');
});

t.test('/h2/upload-stall: SETTINGS_INITIAL_WINDOW_SIZE 0 after the request and no window for the body; after `ms` both come back, the answer after the body', async (t) => {
  const client = await open();
  const started = Date.now();
  client.request('/h2/upload-stall?ms=800', 1, 'POST', false);
  const shut = (frames: readonly RawFrame[]): boolean => frames.some((f) => f.type === FRAME.SETTINGS && settingsValues(f).get(SETTING.INITIAL_WINDOW_SIZE) === 0);
  await client.until(shut, 3000);
  // The body the window allowed before our SETTINGS: it gets no window back.
  client.socket.write(frame(FRAME.DATA, 0, 1, Buffer.alloc(16_384, 0x61)));
  await client.until(() => false, 300);
  t.notOk(ofType(client.frames, FRAME.WINDOW_UPDATE).some((f) => f.streamId === 1), 'no window for the stream while it stalls');
  await client.until((f) => f.some((x) => x.type === FRAME.WINDOW_UPDATE && x.streamId === 1), 3000);
  t.equal(ofType(client.frames, FRAME.WINDOW_UPDATE).find((f) => f.streamId === 1)?.payload.readUInt32BE(0), 16_384, 'after `ms` the withheld window comes back');
  t.notOk(endedOn(1)(client.frames), 'no answer before the body ends');
  client.socket.write(frame(FRAME.DATA, FLAG.END_STREAM, 1, Buffer.alloc(10, 0x61)));
  await client.until(endedOn(1), 8000);
  const ours = ofType(client.frames, FRAME.SETTINGS).filter((f) => f.flags === 0).map(settingsValues);
  t.equal(ours[1]?.get(SETTING.INITIAL_WINDOW_SIZE), 0, 'the window shut');
  t.equal(ours[2]?.get(SETTING.INITIAL_WINDOW_SIZE), DEFAULT_WINDOW, 'and given back');
  t.ok(Date.now() - started >= 700, 'after `ms`');
  t.equal(field(headersOn(client, 1), 'x-chaos-stall-ms'), '800');
});

t.test('/h2/push: PUSH_PROMISE frames, their parent and promised ids', async (t) => {
  const promiseOf = (f: RawFrame) => ({ parent: f.streamId, promised: f.payload.readUInt32BE(0) & 0x7fffffff });
  const disabled = await get('/h2/push?mode=when-disabled', endedOn(2), [[SETTING.ENABLE_PUSH, 0]]);
  t.equal(field(headersOn(disabled, 1), 'x-chaos-client-enable-push'), '0');
  const [promise] = ofType(disabled.frames, FRAME.PUSH_PROMISE);
  t.same(promiseOf(promise!), { parent: 1, promised: 2 }, 'a promise although ENABLE_PUSH is 0');
  t.same(new HpackDecoder().decode(promise!.payload.subarray(4)), [[':method', 'GET'], [':scheme', 'http'], [':authority', '127.0.0.1'], [':path', '/status/200']]);
  t.ok(endedOn(2)(disabled.frames), 'and the pushed response');
  const even = await get('/h2/push?mode=even-parent', endedOn(1));
  t.same(promiseOf(ofType(even.frames, FRAME.PUSH_PROMISE)[0]!), { parent: 2, promised: 3 }, 'on even stream 2, promising odd 3');
  const rst = await get('/h2/push?mode=push-then-rst', has(FRAME.RST_STREAM));
  const [reset] = ofType(rst.frames, FRAME.RST_STREAM);
  t.same([reset?.streamId, reset?.payload.readUInt32BE(0)], [2, ERROR.INTERNAL_ERROR], 'the promised stream reset');
  t.notOk(endedOn(2)(rst.frames), 'its response cut');
  // The client may reset what was promised: not a stream it never saw (the reader knows stream 2 now).
  rst.socket.write(frame(FRAME.RST_STREAM, 0, 2, Buffer.from([0, 0, 0, 8])));
  rst.request('/status/200', 3);
  await rst.until(endedOn(3));
  t.same(headersOn(rst, 3)[0], [':status', '200'], 'the connection lives on');
});
