import { defineHttpEndpoint } from '../../../../shared/http-service.js';
import { int, str } from '../../../../shared/params.js';
import { seededBytes } from '../../../../shared/seed.js';

export default defineHttpEndpoint({
  id: 'bytes',
  path: '/bytes',
  category: 'payload',
  summary: '`n` seeded random bytes with an accurate Content-Length, as application/octet-stream',
  params: {
    n: int({ min: 1, max: 4096, default: 256, description: 'bytes in the body' }),
    seed: str({ maxLength: 256, default: '42', description: 'same seed, same bytes' }),
  },
  handle(ctx, { n, seed }) {
    ctx.send(200, 'application/octet-stream', seededBytes(seed, n));
  },
});
