import { UPGRADE_PARAMS } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { HTTP1_AND_H2, sendWhole, twinBody } from '../../http2/twin.js';

export default defineControlEndpoint({
  id: 'h2-upgrade',
  path: '/h2/upgrade',
  category: 'http2',
  summary: 'Twin of /h2/upgrade: an HTTP/1.1 request asking `Upgrade: h2c` gets an ordinary HTTP/1.1 200, the upgrade declined as RFC 7540 §3.2 allows (RFC 9113 §3.1 deprecates h2c upgrade; prior knowledge reaches HTTP/2 here); over HTTP/2 a 200',
  params: UPGRADE_PARAMS,
  transports: HTTP1_AND_H2,
  handle(ctx, { mode }) {
    const asked = ctx.req.headers.upgrade ?? null;
    sendWhole(ctx, twinBody(ctx, mode, { protocol: ctx.req.httpVersion === '2.0' ? 'HTTP/2' : 'HTTP/1.1', upgrade_asked: asked ?? 'none', upgraded: false }));
  },
});
