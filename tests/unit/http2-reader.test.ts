// The chaos host's HTTP/2 frame reader (services/chaos/http2/reader.ts): each
// bound of issue 28's "The reader faces hostile clients", just within and just
// past it, on bytes alone (the session's timers, idle and MAX_RESPONSE_MS, are
// tested on sockets in tests/integration/http2/).
import t from 'tap';
import { encodeLiterals, type HeaderField } from '../../services/chaos/http2/hpack.js';
import {
  dataFrame, ERROR, FLAG, frame, FRAME, headersFrame, pingFrame, PREFACE, rstStreamFrame, settingsFrame, windowUpdateFrame,
} from '../../services/chaos/http2/frames.js';
import { FrameReader, H2_BOUNDS, type ReaderEvents } from '../../services/chaos/http2/reader.js';

type Event = readonly [string, ...unknown[]];

/** A reader recording its events, past the preface and the client's first SETTINGS. */
function reader(clock = { now: 0 }): { reader: FrameReader; events: Event[] } {
  const events: Event[] = [];
  const record = (name: string) => (...args: unknown[]) => void events.push([name, ...args]);
  const sink: ReaderEvents = {
    request: (id, fields, end) => void events.push(['request', id, fields.length, end]),
    requestEnded: record('requestEnded'), refuse: record('refuse'), grant: record('grant'), settings: record('settings'),
    settingsAck: record('settingsAck'), ping: record('ping'), windowUpdate: record('windowUpdate'),
    streamReset: record('streamReset'), goaway: record('goaway'), exhausted: record('exhausted'), connectionError: record('connectionError'),
  };
  const r = new FrameReader(sink, () => clock.now);
  r.push(Buffer.concat([PREFACE, settingsFrame([])]));
  events.length = 0;
  return { reader: r, events };
}

const GET: HeaderField[] = [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'x']];
const errorOf = (events: readonly Event[]): unknown => events.find((e) => e[0] === 'connectionError')?.[1];
const count = (events: readonly Event[], name: string): number => events.filter((e) => e[0] === name).length;

t.test('preface: a wrong one, and no SETTINGS after it, are PROTOCOL_ERROR', async (t) => {
  const events: Event[] = [];
  const sink = { connectionError: (code: number) => void events.push(['connectionError', code]) } as unknown as ReaderEvents;
  new FrameReader(sink).push(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
  t.equal(errorOf(events), ERROR.PROTOCOL_ERROR, 'HTTP/1.1 bytes');
  events.length = 0;
  new FrameReader(sink).push(Buffer.concat([PREFACE, pingFrame(Buffer.alloc(8), false)]));
  t.equal(errorOf(events), ERROR.PROTOCOL_ERROR, 'PING first');
});

t.test('frames above 16 KiB are FRAME_SIZE_ERROR, read from the header alone', async (t) => {
  const { reader: r, events } = reader();
  r.push(frame(FRAME.DATA, 0, 1, Buffer.alloc(16384)).subarray(0, 9));
  t.equal(errorOf(events), undefined, '16384 is allowed');
  const next = reader();
  next.reader.push(frame(FRAME.DATA, 0, 1, Buffer.alloc(16385)).subarray(0, 9));
  t.equal(errorOf(next.events), ERROR.FRAME_SIZE_ERROR, '16385 is refused before its payload arrives');
});

t.test('header block: 16 KiB with CONTINUATION, at most 32 CONTINUATION frames', async (t) => {
  // Dynamic table size updates to 0: allowed any number of times before the first field, and they decode to nothing.
  const chunk = (n: number): Buffer => Buffer.alloc(n, 0x20);
  const sent = (sizes: readonly number[]): Event[] => {
    const { reader: r, events } = reader();
    r.push(headersFrame(1, chunk(sizes[0] as number), true, sizes.length === 1));
    sizes.slice(1).forEach((size, i) => r.push(frame(FRAME.CONTINUATION, i === sizes.length - 2 ? FLAG.END_HEADERS : 0, 1, chunk(size))));
    return events;
  };
  t.equal(errorOf(sent([8192, 8192])), undefined, '16384 bytes over two frames: read');
  t.equal(errorOf(sent([8192, 8193])), ERROR.ENHANCE_YOUR_CALM, '16385 bytes over two frames');
  t.equal(errorOf(sent(new Array(33).fill(1))), undefined, 'HEADERS and 32 CONTINUATION: read');
  t.equal(count(sent(new Array(33).fill(1)), 'request'), 1);
  t.equal(errorOf(sent(new Array(34).fill(0))), ERROR.ENHANCE_YOUR_CALM, '33 empty CONTINUATION frames: a flood');
  const { reader: r, events } = reader();
  r.push(headersFrame(1, chunk(1), true, false));
  r.push(pingFrame(Buffer.alloc(8), false));
  t.equal(errorOf(events), ERROR.PROTOCOL_ERROR, 'another frame inside a header block');
});

t.test('decoded header list over 16 KiB: ENHANCE_YOUR_CALM; bad HPACK: COMPRESSION_ERROR', async (t) => {
  const big: HeaderField[] = [...GET, ...Array.from({ length: 70 }, (_, i): HeaderField => [`x-${i}`, 'v'.repeat(200)])];
  const { reader: r, events } = reader();
  const block = encodeLiterals(big);
  r.push(headersFrame(1, block.subarray(0, 10000), true, false));
  r.push(frame(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, block.subarray(10000)));
  t.ok(block.length <= H2_BOUNDS.maxHeaderBlockBytes, 'the block itself is within 16 KiB');
  t.equal(errorOf(events), ERROR.ENHANCE_YOUR_CALM);
  const bad = reader();
  bad.reader.push(headersFrame(1, Buffer.from([0xff, 0x00]), true));
  t.equal(errorOf(bad.events), ERROR.COMPRESSION_ERROR);
});

t.test('at most 8 streams at once: the 9th is REFUSED_STREAM, and a closed one makes room', async (t) => {
  const { reader: r, events } = reader();
  for (let id = 1; id <= 17; id += 2) r.push(headersFrame(id, GET, true));
  t.equal(count(events, 'request'), 8);
  t.same(events.at(-1), ['refuse', 17, ERROR.REFUSED_STREAM]);
  r.closeStream(1);
  r.push(headersFrame(19, GET, true));
  t.same(events.slice(-2), [['request', 19, 4, true], ['requestEnded', 19]], 'room again after one ends (its HEADERS ended the request)');
});

t.test('at most 100 streams per connection: exhausted at the 100th, REFUSED_STREAM after', async (t) => {
  const { reader: r, events } = reader();
  for (let n = 0; n < 101; n++) {
    const id = 2 * n + 1;
    r.push(headersFrame(id, GET, true));
    r.closeStream(id);
  }
  t.equal(count(events, 'request'), 100);
  t.same(events.find((e) => e[0] === 'exhausted'), ['exhausted', 199]);
  t.same(events.at(-1), ['refuse', 201, ERROR.REFUSED_STREAM]);
});

t.test('client RST_STREAM: 50 are fine, the 51st is ENHANCE_YOUR_CALM (rapid reset)', async (t) => {
  const { reader: r, events } = reader();
  for (let n = 0; n < 51; n++) {
    const id = 2 * n + 1;
    r.push(headersFrame(id, GET, false));
    r.push(rstStreamFrame(id, ERROR.CANCEL));
    if (n === 49) t.equal(errorOf(events), undefined, 'after 50');
  }
  t.equal(count(events, 'streamReset'), 50);
  t.equal(errorOf(events), ERROR.ENHANCE_YOUR_CALM, 'at 51');
});

t.test('SETTINGS and PING: 10 per second each, then ENHANCE_YOUR_CALM', async (t) => {
  for (const [name, make] of [['SETTINGS', () => settingsFrame([])], ['PING', () => pingFrame(Buffer.alloc(8), false)]] as const) {
    const clock = { now: 0 };
    const { reader: r, events } = reader(clock);
    // The first SETTINGS of the preface counted: SETTINGS has 9 more in this second.
    const allowed = name === 'SETTINGS' ? 9 : 10;
    for (let n = 0; n < allowed; n++) r.push(make());
    t.equal(errorOf(events), undefined, `${name}: ${allowed} in the first second`);
    clock.now = 999;
    r.push(make());
    t.equal(errorOf(events), ERROR.ENHANCE_YOUR_CALM, `${name}: one more within the second`);
    const later = reader(clock);
    for (let n = 0; n < allowed; n++) later.reader.push(make());
    clock.now += 1000;
    later.reader.push(make());
    t.equal(errorOf(later.events), undefined, `${name}: fine a second later`);
  }
});

t.test('request bodies: window given back up to 1 MiB per stream, then only the connection window', async (t) => {
  const { reader: r, events } = reader();
  r.push(headersFrame(1, GET, false));
  const piece = Buffer.alloc(16384);
  let streamGrants = 0;
  for (let sent = 0; sent < H2_BOUNDS.maxBodyBytes + 3 * 16384; sent += 16384) {
    r.push(dataFrame(1, piece, false));
    streamGrants = events.filter((e) => e[0] === 'grant' && e[1] === 1).length;
  }
  t.equal(streamGrants, H2_BOUNDS.maxBodyBytes / 16384, 'the stream window stops coming back past 1 MiB');
  t.equal(events.filter((e) => e[0] === 'grant' && e[1] === 0).length, H2_BOUNDS.maxBodyBytes / 16384 + 3, 'the connection window always does');
  t.equal(errorOf(events), undefined);
  // The client now has 65,535 - 3 × 16,384 = 16,383 bytes of window left on the stream: one more full frame overflows it.
  r.push(dataFrame(1, piece, false));
  t.same(events.at(-1), ['refuse', 1, ERROR.FLOW_CONTROL_ERROR], 'beyond the window: FLOW_CONTROL_ERROR');
});

t.test('protocol errors a server must detect', async (t) => {
  const cases: readonly [string, Buffer, number][] = [
    ['even stream id', headersFrame(2, GET, true), ERROR.PROTOCOL_ERROR],
    ['DATA on an idle stream', dataFrame(5, Buffer.from('x'), true), ERROR.PROTOCOL_ERROR],
    ['client PUSH_PROMISE', frame(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 1, Buffer.alloc(4)), ERROR.PROTOCOL_ERROR],
    ['orphan CONTINUATION', frame(FRAME.CONTINUATION, FLAG.END_HEADERS, 1), ERROR.PROTOCOL_ERROR],
    ['SETTINGS on a stream', frame(FRAME.SETTINGS, 0, 1), ERROR.PROTOCOL_ERROR],
    ['SETTINGS of 5 bytes', frame(FRAME.SETTINGS, 0, 0, Buffer.alloc(5)), ERROR.FRAME_SIZE_ERROR],
    ['ENABLE_PUSH 2', settingsFrame([[2, 2]]), ERROR.PROTOCOL_ERROR],
    ['INITIAL_WINDOW_SIZE 2^31', settingsFrame([[4, 2 ** 31]]), ERROR.FLOW_CONTROL_ERROR],
    ['PING of 7 bytes', frame(FRAME.PING, 0, 0, Buffer.alloc(7)), ERROR.FRAME_SIZE_ERROR],
    ['WINDOW_UPDATE 0 on the connection', windowUpdateFrame(0, 0), ERROR.PROTOCOL_ERROR],
    ['padding longer than the frame', frame(FRAME.HEADERS, FLAG.PADDED | FLAG.END_HEADERS, 1, Buffer.from([5, 0x82])), ERROR.PROTOCOL_ERROR],
  ];
  for (const [name, bytes, code] of cases) {
    const { reader: r, events } = reader();
    r.push(bytes);
    t.equal(errorOf(events), code, name);
  }
  const { reader: r, events } = reader();
  r.push(frame(0x20, 0, 0, Buffer.from('ignored')));
  r.push(headersFrame(1, GET, true));
  t.equal(count(events, 'request'), 1, 'an unknown frame type is ignored');
});
