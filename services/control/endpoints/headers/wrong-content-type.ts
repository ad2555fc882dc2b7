import { CONTENT_TYPE_MODES, matchedBody } from '../../../../shared/content/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'matched-content-type',
  path: '/matched-content-type',
  category: 'headers',
  summary: 'Twin of /wrong-content-type: a JSON body labelled application/json',
  params: {
    type: oneOf(CONTENT_TYPE_MODES, { default: 'json-as-html', description: 'accepted for parity; the body is always JSON, labelled so' }),
  },
  counterpart: '/wrong-content-type',
  docs: {
    modeParam: 'type',
  },
  handle(ctx, { type }) {
    ctx.send(200, 'application/json', matchedBody(type));
  },
});
