import { PING_FLOOD_PARAMS, chaosReason } from '../../../../shared/content/websocket.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { encodeFrame, OPCODES } from '../../websocket/frame.js';
import { openSession, readHandshake, switchingHead } from '../../websocket/handshake.js';

/** `count` pings of `size` bytes as one buffer (at most 10,000 × 127 bytes: written once per connection). */
function flood(count: number, size: number): Buffer {
  const ping = encodeFrame({ opcode: OPCODES.ping, payload: Buffer.from(chaosReason('ping-flood').padEnd(size, '.').slice(0, size)) });
  const out = Buffer.allocUnsafe(ping.length * count);
  for (let i = 0; i < count; i++) ping.copy(out, i * ping.length);
  return out;
}

export default defineChaosEndpoint({
  id: 'ws-ping-flood',
  path: '/ws/ping-flood',
  category: 'websocket',
  summary: 'A WebSocket that sends `count` pings at once after the handshake (each of `size` bytes), then a text message, then echoes',
  params: PING_FLOOD_PARAMS,
  headers: ['X-Chaos-Pings', 'X-Chaos-Ping-Bytes'],
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { count, size }) {
    const handshake = readHandshake(ctx);
    if (handshake === undefined) return;
    openSession(ctx, switchingHead(ctx, handshake, { Pings: count, 'Ping-Bytes': size }), {
      opened(session) {
        // Once per connection: the flood is the handshake's answer, never the echo's.
        session.sendRaw(flood(count, size));
        session.text(`${chaosReason('ping-flood')}: sent ${count} pings`);
      },
    });
  },
});
