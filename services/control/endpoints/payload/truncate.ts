import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { TRUNCATE_PARAMS, digitPattern } from '../../../../shared/content/payload/index.js';

export default defineControlEndpoint({
  id: 'truncate',
  path: '/truncate',
  category: 'payload',
  summary: 'Twin of /truncate: `at` bytes of 0123456789… with a Content-Length that says `at`',
  params: TRUNCATE_PARAMS,
  handle(ctx, { at }) {
    ctx.send(200, 'text/plain', digitPattern(at));
  },
});
