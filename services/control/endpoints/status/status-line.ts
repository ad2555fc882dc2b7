import { HONEST_STATUS_LINE, STATUS_LINE_PARAMS, statusLineBody } from '../../../../shared/content/status.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'status-line',
  path: '/status-line',
  category: 'status',
  summary: 'Twin of /status-line: `HTTP/1.1 200 OK` with CRLF line ends and the same document, whatever the mode',
  params: STATUS_LINE_PARAMS,
  handle(ctx, { mode }) {
    ctx.send(200, 'application/json', statusLineBody(mode, HONEST_STATUS_LINE, 'CRLF'));
  },
});
