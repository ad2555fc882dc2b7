import { NDJSON_CONTENT_TYPE, NDJSON_PARAMS, NDJSON_VALID } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'ndjson',
  path: '/ndjson',
  category: 'payload',
  summary: 'Twin of /ndjson: the five records as valid NDJSON, one JSON text per LF-terminated line (mode accepted for parity)',
  params: NDJSON_PARAMS,
  handle(ctx) {
    ctx.send(200, NDJSON_CONTENT_TYPE, NDJSON_VALID);
  },
});
