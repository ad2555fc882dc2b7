import { JSONAPI_PARAMS, chaosJsonApi } from '../../../../shared/content/payload/index.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'jsonapi',
  path: '/jsonapi',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'A JSON:API document that breaks JSON:API 1.1: data and errors together, media type parameters, relationship links that 404, one resource included twice, one object where the collection is an array, an included resource nothing links, a resource without id or without type',
  params: JSONAPI_PARAMS,
  headers: ['X-Chaos-Jsonapi-Mode'],
  handle(ctx, { mode }) {
    const answer = chaosJsonApi(mode);
    sendComplete(ctx, answer.status, answer.contentType, answer.body, { 'Jsonapi-Mode': mode }, answer.headers);
  },
});
