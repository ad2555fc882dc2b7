import { JSONAPI_TWIN_PARAMS, validJsonApi } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'jsonapi',
  path: '/jsonapi',
  category: 'payload',
  summary: 'Twin of /jsonapi: a valid JSON:API 1.1 compound document (application/vnd.api+json) whose links resolve here, via doc (mode is accepted, no defect applied)',
  params: JSONAPI_TWIN_PARAMS,
  handle(ctx, { doc }) {
    const answer = validJsonApi(doc);
    ctx.send(answer.status, answer.contentType, answer.body, undefined, answer.headers);
  },
});
