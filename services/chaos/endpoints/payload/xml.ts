import { XML_CONTENT_TYPE, XML_PARAMS, xmlChaosBody } from '../../../../shared/content/payload/index.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'xml',
  path: '/xml',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'An XML document that is not well-formed: an unclosed tag, an undeclared entity, two root elements, or a UTF-16 declaration over UTF-8 bytes',
  params: XML_PARAMS,
  headers: ['X-Chaos-Xml-Mode'],
  // Not in the /random pool: its picks are pinned by seed, and a new member would move them.
  handle(ctx, { mode }) {
    sendComplete(ctx, 200, XML_CONTENT_TYPE, xmlChaosBody(mode), { 'Xml-Mode': mode });
  },
});
