import { CHARSET_PARAMS, charsetChaos } from '../../../../shared/content/payload/index.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'charset',
  path: '/charset',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'A line of text whose charset lies: UTF-8 bytes labelled ISO-8859-1, a UTF-16LE BOM and bytes under charset=utf-8, or invalid UTF-8 sequences under charset=utf-8',
  params: CHARSET_PARAMS,
  headers: ['X-Chaos-Charset-Mode'],
  // Not in the /random pool: its picks are pinned by seed, and a new member would move them.
  handle(ctx, { mode }) {
    const { contentType, body } = charsetChaos(mode);
    sendComplete(ctx, 200, contentType, body, { 'Charset-Mode': mode });
  },
});
