import { DUPLICATE_HEADERS_PARAMS, duplicateHeadersBody, duplicateStatus, duplicateTwinLines } from '../../../../shared/content/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'duplicate-headers',
  path: '/duplicate-headers',
  category: 'headers',
  summary: 'Twin of /duplicate-headers: the same status and document with each header once (the first value), and each cookie on a Set-Cookie line of its own',
  params: DUPLICATE_HEADERS_PARAMS,
  handle(ctx, { mode }) {
    ctx.send(duplicateStatus(mode), 'application/json', duplicateHeadersBody(mode), undefined, duplicateTwinLines(mode));
  },
});
