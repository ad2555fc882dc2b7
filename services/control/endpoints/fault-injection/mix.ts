import { MIX_DELAY_MAX_MS, MIX_PARAMS, mixContent, ownContentType } from '../../../../shared/content/fault-injection/index.js';
import { bodyFraming } from '../../../../shared/content/status.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { msLeft } from '../../../../shared/primitives/timers.js';

export default defineControlEndpoint({
  id: 'mix',
  path: '/mix',
  category: 'status',
  summary: 'Twin of /mix: the same status, headers and body after the same delay, delivered whole; the fault part is ignored',
  params: MIX_PARAMS,
  holding: {
    // The same delay, then everything at once.
    longestMs: () => MIX_DELAY_MAX_MS,
  },
  docs: {
    example: { target: '/mix?status=503&header=Retry-After:5&body=text:hello' },
  },
  handle(ctx, { status, delay, header, body: bodyPart }) {
    const { type, lines } = ownContentType(header ?? [], mixContent(bodyPart ?? { kind: 'json' }, status));
    const content = mixContent(bodyPart ?? { kind: 'json' }, status);
    const answer = (): void => {
      if (ctx.res.destroyed) return;
      const framing = bodyFraming(status);
      if (framing === 'json') {
        ctx.send(status, type, content.bytes, undefined, lines);
        return;
      }
      // 204/304 carry no body (and no Content-Length); 205 says Content-Length: 0.
      const head = [...(framing === 'empty' ? [['Content-Type', type], ['Content-Length', '0']] : []), ...ctx.headers, ...lines];
      ctx.res.writeHead(status, head.flat());
      ctx.res.end();
    };
    if (delay === 0) {
      answer();
      return;
    }
    // The wait dies with the connection, and is never cut short (shared/primitives/timers.ts).
    return new Promise<void>((resolve) => {
      const due = performance.now() + delay;
      const wait = (ms: number): NodeJS.Timeout =>
        setTimeout(() => {
          const left = msLeft(due);
          if (left > 0) {
            timer = wait(left);
            return;
          }
          ctx.res.off('close', gone);
          answer();
          resolve();
        }, ms);
      let timer = wait(delay);
      const gone = (): void => {
        clearTimeout(timer);
        resolve();
      };
      ctx.res.once('close', gone);
    });
  },
});
