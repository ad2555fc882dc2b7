import { ipBody } from '../../../../shared/content/inspection.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'ip',
  path: '/ip',
  category: 'headers',
  summary: 'Twin of /ip: the client address the service computed (X-Forwarded-For behind a trusted proxy) as `{"origin": …}`',
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/json', ipBody({ clientAddress: ctx.clientAddress }));
  },
});
