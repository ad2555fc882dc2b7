import type { IncomingMessage } from 'node:http';
import { KINDS_BODY_MAX, KINDS_METHODS, KINDS_TARGET_PARAMS, KINDS_TARGET_PATH, kindsTargetBody } from '../../../../shared/content/redirects.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

/** The first `max` bytes of the request body and its full length; the rest is read and dropped. */
function readBounded(req: IncomingMessage, max: number): Promise<{ head: Buffer; bytes: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (kept < max) {
        const part = chunk.subarray(0, max - kept);
        chunks.push(part);
        kept += part.length;
      }
    });
    req.once('end', () => resolve({ head: Buffer.concat(chunks), bytes }));
    req.once('error', reject);
  });
}

export default defineControlEndpoint({
  id: 'redirect-kinds-target',
  path: KINDS_TARGET_PATH,
  methods: [...KINDS_METHODS],
  category: 'status',
  summary: 'Twin of /redirect-kinds/target: 200 reporting the method, Content-Type and body (first 1 KiB) it received',
  params: KINDS_TARGET_PARAMS,
  async handle(ctx, { code }) {
    const { head, bytes } = await readBounded(ctx.req, KINDS_BODY_MAX);
    const method = ctx.req.method ?? 'GET';
    ctx.send(200, 'application/json', kindsTargetBody(method, code, ctx.req.headers['content-type'], head, bytes), undefined, [['Cache-Control', 'no-store']]);
  },
});
