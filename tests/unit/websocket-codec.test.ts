// The chaos host's WebSocket codec (services/chaos/websocket/): the frame
// writer's header bits and length forms, and the reader's rules and bounds
// (RFC 6455 §5), each with the close code it calls for.
import t from 'tap';
import { acceptKey, closeFrame, closePayload, encodeFrame, fitReason, isValidCloseCode, OPCODES, RSV1, RSV2 } from '../../services/chaos/websocket/frame.js';
import { FrameReader, MAX_FRAME_BYTES, MAX_MESSAGE_BYTES, type ClientEvent } from '../../services/chaos/websocket/reader.js';

const MASK = Buffer.from([0x11, 0x22, 0x33, 0x44]);

/** A client frame: masked unless told otherwise. */
function client(opcode: number, payload: Buffer | string, options: { fin?: boolean; rsv?: number; masked?: boolean } = {}): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return encodeFrame({ opcode, payload: data, fin: options.fin, rsv: options.rsv, mask: options.masked === false ? undefined : MASK });
}

function read(...frames: Buffer[]): ClientEvent[] {
  return new FrameReader().push(Buffer.concat(frames));
}

t.test('the writer: FIN, RSV, opcode, the three length forms and the mask bit', async (t) => {
  const small = encodeFrame({ opcode: OPCODES.text, payload: Buffer.from('hi') });
  t.same([...small], [0x81, 2, 0x68, 0x69], 'FIN + text, 7-bit length, no mask');
  const medium = encodeFrame({ opcode: OPCODES.binary, payload: Buffer.alloc(300) });
  t.same([...medium.subarray(0, 4)], [0x82, 126, 0x01, 0x2c], '16-bit length for 126..65535');
  t.equal(medium.length, 4 + 300);
  const edge = encodeFrame({ opcode: OPCODES.binary, payload: Buffer.alloc(125) });
  t.equal(edge[1], 125, '125 still fits the 7-bit form');
  const large = encodeFrame({ opcode: OPCODES.binary, payload: Buffer.alloc(70_000) });
  t.same([...large.subarray(0, 10)], [0x82, 127, 0, 0, 0, 0, 0, 0x01, 0x11, 0x70], '64-bit length past 65535');
  const lies = encodeFrame({ opcode: OPCODES.ping, payload: Buffer.from('x'), fin: false, rsv: RSV1 | RSV2 });
  t.equal(lies[0], 0x69, 'no FIN, RSV1 and RSV2, ping');
  const masked = encodeFrame({ opcode: OPCODES.text, payload: Buffer.from('abcd'), mask: MASK });
  t.equal(masked[1], 0x80 | 4, 'mask bit with the length');
  t.same([...masked.subarray(2, 6)], [...MASK], 'the key follows the length');
  t.same([...masked.subarray(6)], [0x61 ^ 0x11, 0x62 ^ 0x22, 0x63 ^ 0x33, 0x64 ^ 0x44], 'payload masked with the key');
});

t.test('close payloads, codes and the handshake key', async (t) => {
  t.same([...closePayload(1000, 'ok')], [0x03, 0xe8, 0x6f, 0x6b]);
  t.equal(closePayload(undefined).length, 0, 'no code: an empty body');
  t.same([...closeFrame(4000, 'x').subarray(0, 2)], [0x88, 3]);
  t.equal(Buffer.byteLength(fitReason('é'.repeat(100)), 'utf8'), 122, 'a reason is cut to 123 bytes on a character boundary');
  for (const code of [1000, 1003, 1007, 1014, 3000, 4999]) t.ok(isValidCloseCode(code), `${code} may be sent`);
  for (const code of [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000]) t.notOk(isValidCloseCode(code), `${code} may not be sent`);
  // RFC 6455 §1.3's example.
  t.equal(acceptKey('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
});

t.test('the reader: messages, fragments and control frames in order', async (t) => {
  const events = read(
    client(OPCODES.text, 'hel', { fin: false }),
    client(OPCODES.ping, 'p'),
    client(OPCODES.continuation, 'lo'),
    client(OPCODES.binary, Buffer.from([1, 2, 3])),
    client(OPCODES.pong, ''),
    client(OPCODES.close, closePayload(1000, 'bye')),
    client(OPCODES.text, 'dropped after close'),
  );
  t.same(
    events.map((e) => (e.kind === 'message' ? [e.kind, e.binary, e.data.toString()] : e.kind === 'close' ? [e.kind, e.code, e.reason] : [e.kind, e.kind === 'fail' ? e.code : e.data.toString()])),
    [['ping', 'p'], ['message', false, 'hello'], ['message', true, '\u0001\u0002\u0003'], ['pong', ''], ['close', 1000, 'bye']],
  );
  t.same(read(client(OPCODES.close, Buffer.alloc(0))), [{ kind: 'close', code: undefined, reason: '' }], 'an empty close body is allowed');
  const big = Buffer.alloc(MAX_FRAME_BYTES, 7);
  const [message] = read(client(OPCODES.binary, big));
  t.equal(message?.kind === 'message' && message.data.length, MAX_FRAME_BYTES, 'a frame of exactly 64 KiB is read');
});

t.test('the reader: each broken rule and the code it closes with', async (t) => {
  const cases: [string, Buffer, number][] = [
    ['unmasked client frame', client(OPCODES.text, 'x', { masked: false }), 1002],
    ['RSV1 without an extension', client(OPCODES.text, 'x', { rsv: RSV1 }), 1002],
    ['unknown data opcode', client(0x3, 'x'), 1002],
    ['unknown control opcode', client(0xb, 'x'), 1002],
    ['fragmented ping', client(OPCODES.ping, 'x', { fin: false }), 1002],
    ['126-byte ping', client(OPCODES.ping, Buffer.alloc(126)), 1002],
    ['orphan continuation', client(OPCODES.continuation, 'x'), 1002],
    ['a message inside a fragmented one', Buffer.concat([client(OPCODES.text, 'a', { fin: false }), client(OPCODES.text, 'b')]), 1002],
    ['one-byte close body', client(OPCODES.close, Buffer.from([3])), 1002],
    ['close code 1005', client(OPCODES.close, closePayload(1005)), 1002],
    ['close code 999', client(OPCODES.close, closePayload(999)), 1002],
    ['invalid UTF-8 text', client(OPCODES.text, Buffer.from([0x61, 0xff])), 1007],
    ['invalid UTF-8 close reason', client(OPCODES.close, closePayload(1000, Buffer.from([0xc3]))), 1007],
    ['frame over 64 KiB', client(OPCODES.binary, Buffer.alloc(MAX_FRAME_BYTES + 1)), 1009],
  ];
  for (const [name, bytes, code] of cases) {
    const reader = new FrameReader();
    const events = reader.push(bytes);
    t.equal(events.length, 1, `${name}: one event`);
    t.match(events[0], { kind: 'fail', code }, `${name}: close ${code}`);
    t.ok(reader.dead, `${name}: the reader stops`);
    t.same(reader.push(client(OPCODES.text, 'more')), [], `${name}: later input is dropped`);
  }
  // A 64-bit length with the top bit set, header alone.
  const top = Buffer.from([0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
  t.match(read(top), [{ kind: 'fail', code: 1002 }], 'a 64-bit length with its top bit set');
  // 16 frames of 64 KiB are 1 MiB; one byte more makes a message over 1 MiB: refused at the frame that crosses it, before its payload.
  const reader = new FrameReader();
  const fragment = client(OPCODES.continuation, Buffer.alloc(MAX_FRAME_BYTES), { fin: false });
  let events = reader.push(client(OPCODES.binary, Buffer.alloc(MAX_FRAME_BYTES), { fin: false }));
  for (let i = 1; i < MAX_MESSAGE_BYTES / MAX_FRAME_BYTES && events.length === 0; i++) events = reader.push(fragment);
  t.same(events, [], 'exactly 1 MiB in fragments is still read');
  t.ok(reader.heldBytes <= MAX_MESSAGE_BYTES, 'held bytes stay within the message bound');
  t.match(reader.push(client(OPCODES.continuation, Buffer.alloc(1))), [{ kind: 'fail', code: 1009 }], 'one byte more: 1009');
});
