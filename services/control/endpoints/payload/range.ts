import { answerRange } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'range',
  path: '/range',
  category: 'payload',
  summary: 'Twin of /range: RFC 9110 byte ranges over a 4000-byte resource (206, multipart/byteranges, 416, If-Range)',
  params: {},
  headers: ['Accept-Ranges', 'ETag', 'Content-Range'],
  handle(ctx) {
    const { range, 'if-range': ifRange } = ctx.req.headers;
    // node types If-Range as possibly repeated; repeated lines join as one list, which never matches.
    const answer = answerRange(range, Array.isArray(ifRange) ? ifRange.join(', ') : ifRange);
    ctx.send(answer.status, answer.contentType, answer.body, undefined, answer.headers);
  },
});
