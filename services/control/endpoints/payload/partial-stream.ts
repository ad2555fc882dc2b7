import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { PARTIAL_STREAM_PARAMS, partialStreamDocument } from '../../../../shared/content/payload/index.js';

export default defineControlEndpoint({
  id: 'partial-stream',
  path: '/partial-stream',
  category: 'payload',
  summary: 'Twin of /partial-stream: the complete JSON document whose opening `bytes` the chaos host sends',
  params: PARTIAL_STREAM_PARAMS,
  handle(ctx, { bytes }) {
    ctx.send(200, 'application/json', partialStreamDocument(bytes));
  },
});
