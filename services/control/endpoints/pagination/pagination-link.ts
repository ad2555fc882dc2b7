import { PAGINATION_LINK_PARAMS, correctPage } from '../../../../shared/content/pagination.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'pagination-link',
  path: '/pagination-link',
  category: 'payload',
  summary: 'Twin of /pagination-link: the Link header and the body carry the same correct links (mode is accepted, no lie applied)',
  params: PAGINATION_LINK_PARAMS,
  headers: ['Link', 'X-Total-Count'],
  handle(ctx, { mode, page, size, cursor }) {
    const answer = correctPage({ path: '/pagination-link', mode, page, size, cursor });
    ctx.send(answer.status, answer.contentType, answer.body, undefined, answer.headers);
  },
});
