import { defineHttpEndpoint } from '../../../../shared/http-service.js';
import { int } from '../../../../shared/params.js';
import { partialStreamDocument } from '../../../../shared/payloads.js';

export default defineHttpEndpoint({
  id: 'partial-stream',
  path: '/partial-stream',
  category: 'payload',
  summary: 'Twin of /partial-stream: the complete JSON document whose opening `bytes` the chaos host sends',
  params: { bytes: int({ min: 1, max: 16_384, default: 128, description: 'length of the chaos fragment' }) },
  handle(ctx, { bytes }) {
    ctx.send(200, 'application/json', partialStreamDocument(bytes));
  },
});
