// Fuzzing the chaos host's WebSocket frame reader (services/chaos/websocket/reader.ts):
// random bytes, valid frame streams with mutated bytes, and each stream split
// at every byte. The reader must never throw, must finish each input in
// bounded time, hold no more than one frame plus one message, and read the
// same events however the input is split. The generator is seeded, so a
// failure names a case that replays.
import t, { type Test } from 'tap';
import { encodeFrame, OPCODES, closePayload } from '../../services/chaos/websocket/frame.js';
import { FrameReader, MAX_FRAME_BYTES, MAX_MESSAGE_BYTES, type ClientEvent } from '../../services/chaos/websocket/reader.js';
import { bytes, drawer, mutate, pick, splitEverywhere, type Draw } from '../helpers/fuzz.js';

/** The most a reader may hold at any time: a frame being read and a message being assembled. */
const HELD_BOUND = MAX_FRAME_BYTES + MAX_MESSAGE_BYTES;

/** A plausible client stream: masked frames of every opcode, some fragmented, lengths across the three forms. */
function validStream(draw: Draw): Buffer {
  const frames: Buffer[] = [];
  const count = 1 + pick(draw, 6);
  for (let i = 0; i < count; i++) {
    const mask = bytes(draw, 4);
    const kind = pick(draw, 5);
    const size = [0, 5, 125, 126, 300][pick(draw, 5)] as number;
    if (kind === 0) frames.push(encodeFrame({ opcode: OPCODES.text, payload: Buffer.from('é'.repeat(size >> 1)), mask }));
    else if (kind === 1) frames.push(encodeFrame({ opcode: OPCODES.binary, payload: bytes(draw, size), mask }));
    else if (kind === 2) frames.push(encodeFrame({ opcode: OPCODES.ping, payload: bytes(draw, Math.min(size, 125)), mask }));
    else if (kind === 3) {
      frames.push(encodeFrame({ opcode: OPCODES.binary, payload: bytes(draw, size), mask, fin: false }));
      frames.push(encodeFrame({ opcode: OPCODES.continuation, payload: bytes(draw, 7), mask }));
    } else frames.push(encodeFrame({ opcode: OPCODES.close, payload: closePayload(1000, 'bye'), mask }));
  }
  return Buffer.concat(frames);
}

/** What the reader makes of `input` fed in the given pieces; checks the bound after each piece. */
function feed(t: Test, input: Buffer, cuts: readonly number[], label: string): string {
  const reader = new FrameReader();
  const events: ClientEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    events.push(...reader.push(input.subarray(from, cut)));
    from = cut;
    if (reader.heldBytes > HELD_BOUND) t.fail(`${label}: holds ${reader.heldBytes} bytes`);
  }
  return JSON.stringify(events.map((e) => (e.kind === 'message' || e.kind === 'ping' || e.kind === 'pong' ? [e.kind, e.data.toString('hex')] : e)));
}

t.test('random and mutated input, whole and split at every byte: same events, no throw, bounded', async (t) => {
  const draw = drawer('websocket-reader-fuzz');
  const started = performance.now();
  const splits = splitEverywhere(
    t,
    300,
    (round) => (round % 3 === 0 ? bytes(draw, pick(draw, 64)) : round % 3 === 1 ? validStream(draw) : mutate(draw, validStream(draw))),
    (input, cuts, label) => feed(t, input, cuts, label),
  );
  t.ok(splits > 10_000, `${splits} split inputs read`);
  // Generous: a busy machine; a hang would not finish at all.
  t.ok(performance.now() - started < 60_000, 'finishes in bounded time');
});

t.test('a 64 KiB frame fed one byte at a time: linear, bounded', async (t) => {
  const frame = encodeFrame({ opcode: OPCODES.binary, payload: Buffer.alloc(MAX_FRAME_BYTES, 1), mask: Buffer.from([1, 2, 3, 4]) });
  const reader = new FrameReader();
  const started = performance.now();
  let events: ClientEvent[] = [];
  for (let i = 0; i < frame.length; i++) events = events.concat(reader.push(frame.subarray(i, i + 1)));
  t.equal(events.length, 1);
  t.ok(reader.heldBytes === 0, 'nothing held after the frame');
  t.ok(performance.now() - started < 10_000, 'no quadratic copying');
});

t.test('a declared length past the bounds is refused from the header, before any payload', async (t) => {
  for (const length of [MAX_FRAME_BYTES + 1, 2 ** 32, 2 ** 53 - 1]) {
    const header = Buffer.alloc(14);
    header[0] = 0x82;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
    const reader = new FrameReader();
    t.match(reader.push(header), [{ kind: 'fail', code: 1009 }], `length ${length}: 1009`);
    t.equal(reader.heldBytes, 0, `length ${length}: nothing allocated`);
  }
});
