import { headersBody } from '../../../../shared/content/inspection.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { rawLines } from './inspected.js';

export default defineControlEndpoint({
  id: 'headers',
  path: '/headers',
  category: 'headers',
  summary: 'Twin of /headers: the request header lines echoed faithfully (an object and the lines in order)',
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/json', headersBody({ lines: rawLines(ctx.req.rawHeaders) }));
  },
});
