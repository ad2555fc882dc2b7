import { DRIP_PARAMS, dripBody, fitDrip } from '../../../../shared/content/latency.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { drip } from '../../faults/drip.js';
import { compose } from '../../faults/stage.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'drip',
  path: '/drip',
  category: 'latency',
  transports: HTTP1_AND_H2,
  summary: 'Headers at once, then `bytes` asterisks in `chunk`-byte pieces `interval` ms apart (the chunk is raised so it ends within MAX_RESPONSE_MS)',
  params: DRIP_PARAMS,
  headers: ['X-Chaos-Drip-Bytes', 'X-Chaos-Drip-Interval-Ms', 'X-Chaos-Drip-Chunk'],
  holding: {
    longestMs: (config) => config.maxResponseMs,
  },
  admission: {
    // A schedule longer than MAX_RESPONSE_MS gets a larger chunk, reported in X-Chaos-Clamped.
    adjust: (params, config) => fitDrip(params, config.maxResponseMs),
  },
  handle(ctx, { bytes, interval, chunk }) {
    const wire = compose(ctx.wire, [drip(chunk, interval)]);
    wire.head(
      200,
      chaosHead(ctx, 'application/octet-stream', bytes, { 'Drip-Bytes': bytes, 'Drip-Interval-Ms': interval, 'Drip-Chunk': chunk }),
    );
    wire.write(dripBody(bytes));
    wire.end('keep-alive');
  },
});
