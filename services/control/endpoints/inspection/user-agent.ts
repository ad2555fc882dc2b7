import { userAgentBody } from '../../../../shared/content/inspection.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { rawLines } from './inspected.js';

export default defineControlEndpoint({
  id: 'user-agent',
  path: '/user-agent',
  category: 'headers',
  summary: 'Twin of /user-agent: the User-Agent echoed faithfully as `{"user-agent": …}` (null without one)',
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/json', userAgentBody({ lines: rawLines(ctx.req.rawHeaders) }));
  },
});
