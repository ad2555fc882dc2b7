import { NDJSON_CONTENT_TYPE, NDJSON_PARAMS, ndjsonChaosBody } from '../../../../shared/content/payload/index.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'ndjson',
  path: '/ndjson',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'Five JSON lines labelled application/x-ndjson with one defect: a line that is not JSON, no final newline, or CRLF mixed with LF',
  params: NDJSON_PARAMS,
  headers: ['X-Chaos-Ndjson-Mode'],
  // Not in the /random pool: its picks are pinned by seed, and a new member would move them.
  handle(ctx, { mode }) {
    // The lie is in the lines only: the framing (Content-Length) is accurate.
    sendComplete(ctx, 200, NDJSON_CONTENT_TYPE, ndjsonChaosBody(mode), { 'Ndjson-Mode': mode });
  },
});
