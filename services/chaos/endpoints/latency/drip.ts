import { DRIP_PARAMS, dripBody } from '../../../../shared/content/payload.js';
import { chaosHead, defineChaosEndpoint, writeOnSchedule } from '../../endpoint.js';

export default defineChaosEndpoint({
  id: 'drip',
  path: '/drip',
  category: 'latency',
  holdsConnection: true,
  summary: 'Headers at once, then `bytes` asterisks in `chunk`-byte pieces `interval` ms apart',
  params: DRIP_PARAMS,
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
