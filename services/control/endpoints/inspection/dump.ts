import { BODY_BYTES_HEADER, rebuildHead } from '../../../../shared/content/inspection.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { METHODS } from '../../../../shared/registry/registry.js';
import { readInspected, refuseTooLarge } from './inspected.js';

export default defineControlEndpoint({
  id: 'dump',
  path: '/dump',
  methods: [...METHODS],
  category: 'headers',
  summary: 'Twin of /dump: the request as text/plain, rebuilt from what node:http keeps (request line, header lines with names, order and repeats as received, decoded body up to 64 KiB)',
  params: {},
  headers: [BODY_BYTES_HEADER],
  async handle(ctx) {
    const request = await readInspected(ctx);
    if (request === undefined) return refuseTooLarge(ctx);
    // node:http trims the whitespace around values and de-chunks the body: one space after the colon is what it cannot know.
    const head = rebuildHead(`${request.method} ${request.target} HTTP/${ctx.req.httpVersion}`, request.lines.map(([name, value]) => [name, ` ${value}`]));
    ctx.send(200, 'text/plain', Buffer.concat([head, request.body]), undefined, [[BODY_BYTES_HEADER, String(request.bodyBytes)]]);
  },
});
