import { KINDS_METHODS, KINDS_PARAMS, kindsBody, kindsLocation } from '../../../../shared/content/redirects.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'redirect-kinds',
  path: '/redirect-kinds',
  methods: [...KINDS_METHODS],
  category: 'status',
  summary: 'Twin of /redirect-kinds: the same redirect (code) to /redirect-kinds/target with a correct Location',
  params: KINDS_PARAMS,
  headers: ['Location'],
  docs: {
    modeParam: 'code',
  },
  handle(ctx, { code }) {
    // node:http reads and discards a request body nobody consumes.
    ctx.send(Number(code), 'application/json', kindsBody(code, ctx.req.method ?? 'GET'), undefined, [['Location', kindsLocation(code)]]);
  },
});
