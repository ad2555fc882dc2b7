import { HEAD_LIES_PARAMS, HEAD_LIES_TYPE, HEAD_LIES_WRONG_TYPE, headLiesBody } from '../../../../shared/content/method.js';
import { chaosHead, defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'head-lies',
  path: '/head-lies',
  methods: ['GET', 'HEAD'],
  category: 'method',
  transports: HTTP1_AND_H2,
  summary: "GET is honest; HEAD's answer differs from GET's: another Content-Length, another Content-Type, or a body after the head",
  params: HEAD_LIES_PARAMS,
  headers: ['X-Chaos-Head-Lies-Mode'],
  handle(ctx, { mode }) {
    const body = headLiesBody(mode);
    const extra = { 'Head-Lies-Mode': mode };
    if (ctx.req.method !== 'HEAD') {
      sendComplete(ctx, 200, HEAD_LIES_TYPE, body, extra);
      return;
    }
    switch (mode) {
      case 'different-length':
        ctx.wire.head(200, chaosHead(ctx, HEAD_LIES_TYPE, body.length * 2, extra));
        break;
      case 'different-type':
        ctx.wire.head(200, chaosHead(ctx, HEAD_LIES_WRONG_TYPE, body.length, extra));
        break;
      case 'body-on-head':
        // GET's head, then the body anyway: bytes outside the framing, so the wire sends them on HEAD
        // and the connection stays open, with the next response behind them.
        ctx.wire.head(200, chaosHead(ctx, HEAD_LIES_TYPE, body.length, extra));
        ctx.wire.writeRaw(body);
        break;
    }
    ctx.wire.end();
  },
});
