import { PAGINATION_PARAMS, correctPage } from '../../../../shared/content/pagination.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'pagination',
  path: '/pagination',
  category: 'payload',
  summary: 'Twin of /pagination: the 20-item collection paged correctly, with Link first/prev/next/last, X-Total-Count and stable cursors (mode is accepted, no lie applied)',
  params: PAGINATION_PARAMS,
  headers: ['Link', 'X-Total-Count'],
  handle(ctx, { mode, page, size, cursor }) {
    const answer = correctPage({ path: '/pagination', mode, page, size, cursor });
    ctx.send(answer.status, answer.contentType, answer.body, undefined, answer.headers);
  },
});
