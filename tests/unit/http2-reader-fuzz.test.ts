// Fuzzing the chaos host's HTTP/2 frame reader and HPACK decoder
// (services/chaos/http2/): random bytes, plausible client streams (HEADERS
// with literal, indexed and Huffman fields, CONTINUATION, DATA, SETTINGS,
// PING, WINDOW_UPDATE, RST_STREAM, PRIORITY, unknown types) and mutations of
// them, each read whole, split at every byte and byte by byte. The reader must
// never throw, read the same events however the input is split, hold at most
// one frame, and finish in bounded time. Seeded, so a failure replays. The
// same holds for the reader an h2c upgrade leaves (stream 1 adopted, the
// preface next; http2/h2c.ts), and for its HTTP2-Settings decoder.
import t, { type Test } from 'tap';
import { dataFrame, FLAG, frame, FRAME, headersFrame, pingFrame, PREFACE, rstStreamFrame, settingsFrame, windowUpdateFrame } from '../../services/chaos/http2/frames.js';
import { encodeInteger, encodeLiterals, HpackDecoder, HpackError, huffmanEncode } from '../../services/chaos/http2/hpack.js';
import { decodeHttp2Settings, MAX_UPGRADE_SETTINGS } from '../../services/chaos/http2/h2c.js';
import { FrameReader, type ReaderEvents } from '../../services/chaos/http2/reader.js';
import { bytes, drawer, mutate as mutateBytes, pick, splitEverywhere, type Draw } from '../helpers/fuzz.js';

/** The most a reader holds between pushes: one frame header and payload. */
const HELD_BOUND = 9 + 16_384;

/** A header block as a client might write it: indexed, incremental with Huffman, literal. */
function block(draw: Draw): Buffer {
  const parts: Buffer[] = [Buffer.from([0x82, 0x86, 0x84])];
  const name = `x-${pick(draw, 1000)}`;
  const value = huffmanEncode('v'.repeat(pick(draw, 40)));
  parts.push(Buffer.from([0x40, name.length]), Buffer.from(name), Buffer.from(encodeInteger(value.length, 7, 0x80)), value);
  if (pick(draw, 2) === 0) parts.push(Buffer.from([0xbe])); // the entry just added
  parts.push(encodeLiterals([[':authority', 'chaos.localhost']]));
  return Buffer.concat(parts);
}

function validStream(draw: Draw): Buffer {
  const frames: Buffer[] = [PREFACE, settingsFrame([[4, 1 << 20]])];
  let stream = 1;
  const count = 1 + pick(draw, 8);
  for (let i = 0; i < count; i++) {
    const kind = pick(draw, 9);
    if (kind === 0) frames.push(headersFrame(stream, block(draw), pick(draw, 2) === 0));
    else if (kind === 1) {
      const b = block(draw);
      const cut = pick(draw, b.length);
      frames.push(headersFrame(stream, b.subarray(0, cut), false, false), frame(FRAME.CONTINUATION, FLAG.END_HEADERS, stream, b.subarray(cut)));
    } else if (kind === 2) frames.push(dataFrame(stream, bytes(draw, pick(draw, 300)), pick(draw, 2) === 0));
    else if (kind === 3) frames.push(settingsFrame([[1, 4096], [3, pick(draw, 200)]]));
    else if (kind === 4) frames.push(pingFrame(bytes(draw, 8), pick(draw, 2) === 0));
    else if (kind === 5) frames.push(windowUpdateFrame(pick(draw, 2) === 0 ? 0 : stream, 1 + pick(draw, 70_000)));
    else if (kind === 6) frames.push(rstStreamFrame(stream, pick(draw, 14)));
    else if (kind === 7) frames.push(frame(FRAME.PRIORITY, 0, stream, Buffer.from([0, 0, 0, 0, 16])));
    else frames.push(frame(0x20 + pick(draw, 200), pick(draw, 256), pick(draw, 9), bytes(draw, pick(draw, 20))));
    if (pick(draw, 3) === 0) stream += 2;
  }
  return Buffer.concat(frames);
}

/** Mutations past the preface mostly: a broken preface ends every stream at once. */
const mutate = (draw: Draw, input: Buffer): Buffer => mutateBytes(draw, input, PREFACE.length);

function feed(t: Test, input: Buffer, cuts: readonly number[], label: string, upgraded = false): string {
  const events: unknown[] = [];
  const on = (name: string) => (...args: unknown[]) => void events.push([name, ...args.map((a) => (Buffer.isBuffer(a) ? a.toString('hex') : a instanceof Map ? [...a] : a))]);
  const sink: ReaderEvents = {
    request: on('request'), requestEnded: on('requestEnded'), refuse: on('refuse'), grant: on('grant'), settings: on('settings'),
    settingsAck: on('settingsAck'), ping: on('ping'), windowUpdate: on('windowUpdate'), streamReset: on('streamReset'),
    goaway: on('goaway'), exhausted: on('exhausted'), connectionError: on('connectionError'),
  };
  const reader = new FrameReader(sink, () => 0);
  if (upgraded) reader.adoptUpgrade([[':method', 'GET'], [':scheme', 'http'], [':path', '/h2/rst']]);
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    reader.push(input.subarray(from, cut));
    from = cut;
    if (reader.heldBytes > HELD_BOUND) t.fail(`${label}: holds ${reader.heldBytes} bytes`);
  }
  return JSON.stringify(events);
}

t.test('frame reader: random and mutated input, whole and split at every byte: same events, no throw, bounded', async (t) => {
  const draw = drawer('http2-reader-fuzz');
  const started = performance.now();
  const splits = splitEverywhere(
    t,
    240,
    (round) => (round % 3 === 0 ? Buffer.concat([PREFACE, bytes(draw, pick(draw, 80))]) : round % 3 === 1 ? validStream(draw) : mutate(draw, validStream(draw))),
    (input, cuts, label) => feed(t, input, cuts, label),
  );
  t.ok(splits > 10_000, `${splits} split inputs read`);
  t.ok(performance.now() - started < 120_000, 'finishes in bounded time');
});

t.test('the reader after an h2c upgrade (stream 1 adopted, the preface next): random and mutated input, every split, same events', async (t) => {
  const draw = drawer('http2-reader-upgraded-fuzz');
  const started = performance.now();
  // The plausible streams open stream 1 again: here it is the adopted, half-closed one (its HEADERS and DATA are stream errors).
  const splits = splitEverywhere(
    t,
    120,
    (round) => (round % 3 === 0 ? Buffer.concat([PREFACE, bytes(draw, pick(draw, 80))]) : round % 3 === 1 ? validStream(draw) : mutate(draw, validStream(draw))),
    (input, cuts, label) => feed(t, input, cuts, label, true),
  );
  t.ok(splits > 5_000, `${splits} split inputs read`);
  t.ok(performance.now() - started < 120_000, 'finishes in bounded time');
});

t.test('HTTP2-Settings decoder: random and mutated values give settings or a reason, never a throw, at most 32 settings', async (t) => {
  const draw = drawer('http2-settings-header-fuzz');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ ,';
  let decoded = 0;
  for (let round = 0; round < 20_000; round++) {
    const value = round % 2 === 0
      ? Array.from({ length: pick(draw, 300) }, () => alphabet[pick(draw, alphabet.length)]).join('')
      : mutate(draw, settingsFrame([[1, 4096], [3, pick(draw, 200)], [4, pick(draw, 1 << 20)]]).subarray(9)).toString('base64url');
    let result: Map<number, number> | string;
    try {
      result = decodeHttp2Settings(value);
    } catch (error) {
      t.fail(`round ${round}: ${String(error)} on ${JSON.stringify(value)}`);
      break;
    }
    if (typeof result !== 'string') {
      decoded++;
      if (result.size > MAX_UPGRADE_SETTINGS) t.fail(`round ${round}: ${result.size} settings`);
    }
  }
  t.ok(decoded > 100, `${decoded} values decoded, the rest refused`);
});

t.test('a 16 KiB DATA frame fed one byte at a time: linear, nothing held after it', async (t) => {
  const input = Buffer.concat([PREFACE, settingsFrame([]), headersFrame(1, block(drawer('x')), false), dataFrame(1, Buffer.alloc(16_384, 1), true)]);
  let ended = 0;
  const sink = new Proxy({}, { get: (_target, name) => (name === 'requestEnded' ? () => void ended++ : () => undefined) }) as ReaderEvents;
  const reader = new FrameReader(sink);
  const started = performance.now();
  for (let i = 0; i < input.length; i++) reader.push(input.subarray(i, i + 1));
  t.equal(ended, 1);
  t.equal(reader.heldBytes, 0);
  t.ok(performance.now() - started < 10_000, 'no quadratic copying');
});

t.test('HPACK decoder: random and mutated blocks throw only HpackError, in bounded time', async (t) => {
  const draw = drawer('http2-hpack-fuzz');
  const started = performance.now();
  let decoded = 0;
  for (let round = 0; round < 20_000; round++) {
    const decoder = new HpackDecoder();
    const input = round % 2 === 0 ? bytes(draw, pick(draw, 64)) : mutate(draw, Buffer.concat([Buffer.alloc(PREFACE.length), block(draw)])).subarray(PREFACE.length);
    try {
      decoder.decode(input);
      decoded++;
    } catch (error) {
      if (!(error instanceof HpackError)) {
        t.fail(`round ${round}: ${String(error)} on ${input.toString('hex')}`);
        break;
      }
    }
    if (decoder.tableBytes > 4096) t.fail(`round ${round}: table of ${decoder.tableBytes} bytes`);
  }
  t.ok(decoded > 100, `${decoded} blocks decoded, the rest refused`);
  t.ok(performance.now() - started < 60_000, 'finishes in bounded time');
});
