import { JSON_MODES, jsonControlBody } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'json',
  path: '/json',
  category: 'payload',
  summary: 'Twin of /json: the same document as valid JSON (mode is echoed, no defect applied)',
  params: {
    mode: oneOf(JSON_MODES, { default: 'all', description: 'accepted for parity; the document is always valid' }),
  },
  handle(ctx, { mode }) {
    ctx.send(200, 'application/json', jsonControlBody(mode));
  },
});
