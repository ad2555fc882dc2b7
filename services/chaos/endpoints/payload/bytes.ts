import { oneOf } from '../../../../shared/primitives/params.js';
import { BYTES_N, BYTES_SEED, bytesForSeed } from '../../../../shared/content/payload/index.js';
import { defineChaosEndpoint, sendResponse } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

const PNG_FIRST_BYTE = 0x89;

export default defineChaosEndpoint({
  id: 'bytes',
  path: '/bytes',
  category: 'payload',
  summary: '`n` seeded random bytes framed by a lying Content-Length or a lying Content-Type',
  transports: HTTP1_AND_H2,
  params: {
    mode: oneOf(['content-length-overshoot', 'content-length-undershoot', 'wrong-content-type'], {
      default: 'content-length-overshoot',
    }),
    n: BYTES_N,
    seed: BYTES_SEED,
  },
  headers: ['X-Chaos-Bytes-Mode', 'X-Chaos-Bytes-Seed', 'X-Chaos-Claimed-Length', 'X-Chaos-Actual-Bytes'],
  holding: {
    // The overshoot holds the connection for the bytes that never come, until HOLD_MS;
    // the other modes answer at once and take no held-response slot.
    when: ({ mode }) => mode === 'content-length-overshoot',
    longestMs: (config) => config.holdMs,
  },
  wire: {
    // The seed (42 when absent), n and the mode decide every byte.
    replayable: true,
  },
  // Not in the /random pool: its default, overshoot, holds the connection for
  // bytes that never come, like the endpoints the spec excludes (holdsConnection).
  handle(ctx, { mode, n, seed }) {
    let body = bytesForSeed(seed, n);
    switch (mode) {
      case 'content-length-overshoot': {
        // Claims twice what is sent, then holds the connection: the client waits for the rest.
        const claimed = 2 * n;
        sendResponse(ctx, 200, 'application/octet-stream', claimed, body, extra(mode, seed, claimed, n), 'hold');
        return;
      }
      case 'content-length-undershoot': {
        // Claims half; the rest stays on the keep-alive connection and is read
        // as the start of the next response.
        const claimed = Math.floor(n / 2);
        sendResponse(ctx, 200, 'application/octet-stream', claimed, body, extra(mode, seed, claimed, n));
        return;
      }
      case 'wrong-content-type': {
        // Labelled PNG, never a PNG: the first byte is kept off the signature's 0x89.
        if (body[0] === PNG_FIRST_BYTE) {
          body = Buffer.from(body); // the cached stream stays as seeded
          body[0] = PNG_FIRST_BYTE ^ 0x01;
        }
        sendResponse(ctx, 200, 'image/png', n, body, extra(mode, seed, n, n));
        return;
      }
    }
  },
});

function extra(mode: string, seed: string, claimed: number, actual: number): Record<string, string | number> {
  return { 'Bytes-Mode': mode, 'Bytes-Seed': encodeURIComponent(seed), 'Claimed-Length': claimed, 'Actual-Bytes': actual };
}
