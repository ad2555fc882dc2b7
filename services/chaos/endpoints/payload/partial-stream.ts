import { PARTIAL_STREAM_PARAMS, partialStreamDocument } from '../../../../shared/content/payload/index.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { closeEarly } from '../../faults/close-early.js';
import { compose } from '../../faults/stage.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'partial-stream',
  path: '/partial-stream',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'The opening `bytes` of a JSON object, no Content-Length, then a clean close',
  params: PARTIAL_STREAM_PARAMS,
  headers: ['X-Chaos-Partial-Bytes'],
  holding: {
    // The fragment and the close leave at once.
    longestMs: () => 0,
  },
  wire: {
    cuts: 'close',
  },
  handle(ctx, { bytes }) {
    // The twin's whole document, cut by the fault: no Content-Length and no
    // chunking, the body is delimited by the close (RFC 9112 §6.3), so the
    // client gets a clean end and unparseable JSON.
    const document = partialStreamDocument(bytes);
    const wire = compose(ctx.wire, [closeEarly(bytes)]);
    wire.head(200, chaosHead(ctx, 'application/json', document.length, { 'Partial-Bytes': bytes }));
    wire.write(document);
    wire.end();
  },
});
