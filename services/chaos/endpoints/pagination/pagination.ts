import { PAGINATION_PARAMS, chaosPage } from '../../../../shared/content/pagination.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'pagination',
  path: '/pagination',
  category: 'pagination',
  transports: HTTP1_AND_H2,
  summary:
    'Pages of a 20-item collection that lie: a total of 100, overlapping or skipped items, a next link back to page 1, a size that drifts, a dead next link, looping or expired cursors, duplicate ids',
  params: PAGINATION_PARAMS,
  headers: ['Link', 'X-Total-Count', 'X-Chaos-Pagination-Mode'],
  handle(ctx, { mode, page, size, cursor }) {
    const answer = chaosPage({ path: '/pagination', mode, page, size, cursor });
    sendComplete(ctx, answer.status, answer.contentType, answer.body, { 'Pagination-Mode': mode }, answer.headers);
  },
});
