import { PARTIAL_STREAM_PARAMS, partialStreamFragment } from '../../../../shared/content/payload.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';

export default defineChaosEndpoint({
  id: 'partial-stream',
  path: '/partial-stream',
  category: 'payload',
  holdsConnection: true,
  summary: 'The opening `bytes` of a JSON object, no Content-Length, then a clean close',
  params: PARTIAL_STREAM_PARAMS,
  headers: ['X-Chaos-Partial-Bytes'],
  handle(ctx, { bytes }) {
    // No Content-Length and no chunking: the body is delimited by the close
    // (RFC 9112 §6.3), so the client gets a clean end and unparseable JSON.
    const headers = chaosHead(ctx, 'application/json', undefined, { 'Partial-Bytes': bytes });
    if (!headers.some(([name]) => name === 'Connection')) headers.splice(2, 0, ['Connection', 'close']);
    ctx.wire.head(200, headers);
    ctx.wire.write(partialStreamFragment(bytes));
    ctx.wire.end('close');
  },
});
