import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { BYTES_N, BYTES_SEED, bytesForSeed } from '../../../../shared/content/payload/index.js';

export default defineControlEndpoint({
  id: 'bytes',
  path: '/bytes',
  category: 'payload',
  summary: '`n` seeded random bytes with an accurate Content-Length, as application/octet-stream',
  params: {
    n: BYTES_N,
    seed: BYTES_SEED,
  },
  handle(ctx, { n, seed }) {
    ctx.send(200, 'application/octet-stream', bytesForSeed(seed, n));
  },
});
