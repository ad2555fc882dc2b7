import { PAGINATION_LINK_PARAMS, disagreeingPage } from '../../../../shared/content/pagination.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'pagination-link',
  path: '/pagination-link',
  category: 'pagination',
  transports: HTTP1_AND_H2,
  summary: 'A truthful page whose Link header and body links disagree: a different next, links missing from one side, prev and next swapped',
  params: PAGINATION_LINK_PARAMS,
  headers: ['Link', 'X-Total-Count', 'X-Chaos-Pagination-Link-Mode'],
  handle(ctx, { mode, page, size, cursor }) {
    const answer = disagreeingPage({ path: '/pagination-link', mode, page, size, cursor });
    sendComplete(ctx, answer.status, answer.contentType, answer.body, { 'Pagination-Link-Mode': mode }, answer.headers);
  },
});
