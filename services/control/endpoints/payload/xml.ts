import { XML_CONTENT_TYPE, XML_PARAMS, XML_VALID } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'xml',
  path: '/xml',
  category: 'payload',
  summary: 'Twin of /xml: the same catalog as well-formed UTF-8 XML, as its declaration says (mode accepted for parity)',
  params: XML_PARAMS,
  handle(ctx) {
    ctx.send(200, XML_CONTENT_TYPE, XML_VALID);
  },
});
