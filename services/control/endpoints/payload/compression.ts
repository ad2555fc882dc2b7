import { COMPRESSION_ENCODED, COMPRESSION_TYPE, negotiateEncoding } from '../../../../shared/content/payload/index.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'compression',
  path: '/compression',
  category: 'payload',
  summary: 'Twin of /compression: the same text really encoded br, gzip, deflate or zstd as Accept-Encoding asks (q-values honoured), else identity',
  params: {},
  headers: ['Content-Encoding', 'Vary'],
  handle(ctx) {
    const coding = negotiateEncoding(ctx.req.headers['accept-encoding']);
    // Vary on every answer, identity included: the choice depended on the header.
    const more: HeaderList = coding === 'identity' ? [['Vary', 'Accept-Encoding']] : [['Content-Encoding', coding], ['Vary', 'Accept-Encoding']];
    ctx.send(200, COMPRESSION_TYPE, COMPRESSION_ENCODED[coding], undefined, more);
  },
});
