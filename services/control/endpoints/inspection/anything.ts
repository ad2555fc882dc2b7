import { hostUrl } from '../../../../shared/catalog/catalog.js';
import { anythingBody } from '../../../../shared/content/inspection.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { str } from '../../../../shared/primitives/params.js';
import { METHODS } from '../../../../shared/registry/registry.js';
import { readInspected, refuseTooLarge } from './inspected.js';

export default defineControlEndpoint({
  id: 'anything',
  path: '/anything/{path*}',
  aliases: ['/anything'],
  methods: [...METHODS],
  category: 'headers',
  summary: 'Twin of /anything: the request echoed faithfully as JSON (method, path, args, headers in order, body as text or base64, client address)',
  params: {
    path: str({ in: 'path', maxLength: 8192, default: '', description: 'any sub-path (echoed in `path`)' }),
  },
  docs: {
    example: { target: '/anything/hello?x=1' },
  },
  async handle(ctx) {
    const request = await readInspected(ctx);
    if (request === undefined) return refuseTooLarge(ctx);
    ctx.send(200, 'application/json', anythingBody(request, hostUrl('control', ctx.config.urls)));
  },
});
