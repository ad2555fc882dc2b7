import { KEEPALIVE_PROMISE, keepaliveBody } from '../../../../shared/content/fault-injection/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { replaceHeader } from '../../faults/head-text.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'keepalive-lie',
  path: '/keepalive-lie',
  category: 'fault-injection',
  transports: noH2(NO_H2.keepAlive),
  summary: 'Promises `Connection: keep-alive` and `Keep-Alive: timeout=60`, then closes right after the response: the next request on it fails',
  params: {},
  headers: ['X-Chaos-Keepalive-Lie'],
  wire: {
    cuts: 'close',
  },
  // Not in the /random pool: a client reusing the connection fails afterwards.
  handle(ctx) {
    const body = jsonBody(keepaliveBody(false));
    // The promise replaces whatever Connection line the request earned (even after Connection: close).
    const honest = chaosHead(ctx, 'application/json', body.length, { 'Keepalive-Lie': 'closes-after-response' });
    const date = honest.findIndex(([name]) => name === 'Date');
    const headers = replaceHeader(honest, 'connection', undefined);
    headers.splice(date + 1, 0, ['Connection', 'keep-alive'], ['Keep-Alive', KEEPALIVE_PROMISE]);
    ctx.wire.head(200, headers);
    ctx.wire.write(body);
    // A FIN right after the response; a pipelined request already sent is never answered.
    ctx.wire.end('close');
  },
});
