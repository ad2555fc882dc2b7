import { int } from '../../../../shared/params.js';
import { dripBody } from '../../../../shared/payloads.js';
import { chaosHead, defineChaosEndpoint, writeOnSchedule } from '../../endpoint.js';

export default defineChaosEndpoint({
  id: 'drip',
  path: '/drip',
  category: 'latency',
  summary: 'Headers at once, then `bytes` asterisks in `chunk`-byte pieces `interval` ms apart',
  params: {
    bytes: int({ min: 1, max: 100_000, default: 1000, description: 'total bytes streamed' }),
    interval: int({ min: 10, max: 5000, default: 200, description: 'milliseconds between chunks' }),
    chunk: int({ min: 1, max: 4096, default: 100, description: 'bytes per chunk' }),
  },
  headers: ['X-Chaos-Drip-Bytes', 'X-Chaos-Drip-Interval-Ms', 'X-Chaos-Drip-Chunk'],
  handle(ctx, { bytes, interval, chunk }) {
    const body = dripBody(bytes);
    ctx.wire.head(
      200,
      chaosHead(ctx, 'application/octet-stream', bytes, { 'Drip-Bytes': bytes, 'Drip-Interval-Ms': interval, 'Drip-Chunk': chunk }),
    );
    writeOnSchedule(ctx.wire, body, chunk, interval, 'keep-alive');
  },
});
