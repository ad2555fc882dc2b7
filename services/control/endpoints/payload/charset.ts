import { CHARSET_PARAMS, CHARSET_VALID, CHARSET_VALID_TYPE } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'charset',
  path: '/charset',
  category: 'payload',
  summary: 'Twin of /charset: the same line as valid UTF-8 without a BOM, labelled charset=utf-8 (mode accepted for parity)',
  params: CHARSET_PARAMS,
  handle(ctx) {
    ctx.send(200, CHARSET_VALID_TYPE, CHARSET_VALID);
  },
});
