import { defineHttpEndpoint } from '../../../../shared/http-service.js';
import { int } from '../../../../shared/params.js';
import { digitPattern } from '../../../../shared/payloads.js';

export default defineHttpEndpoint({
  id: 'truncate',
  path: '/truncate',
  category: 'payload',
  summary: 'Twin of /truncate: `at` bytes of 0123456789… with a Content-Length that says `at`',
  params: { at: int({ min: 1, max: 1_000_000, default: 512, description: 'bytes sent' }) },
  handle(ctx, { at }) {
    ctx.send(200, 'text/plain', digitPattern(at));
  },
});
