import { PUSH_PARAMS } from '../../../../shared/content/http2.js';
import { statusBody } from '../../../../shared/content/status.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { H2_TWIN_TRANSPORTS, sendWhole, streamOf, twinBody } from '../../http2/twin.js';

/** What the push promises: GET /status/200 on this host, and the body that path serves. */
const PUSHED_PATH = '/status/200';
const PUSHED_BODY = jsonBody(statusBody(200));

export default defineControlEndpoint({
  id: 'h2-push',
  path: '/h2/push',
  category: 'http2',
  summary: 'Twin of /h2/push over HTTP/2 (node:http2): a PUSH_PROMISE only when the client allows push (most send SETTINGS_ENABLE_PUSH 0: then none), on the request\'s own stream, promising an even stream whose response is whole',
  params: PUSH_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx, { mode }) {
    const stream = streamOf(ctx);
    const pushed = stream.pushAllowed;
    if (pushed) {
      stream.pushStream({ ':path': PUSHED_PATH }, (error, push) => {
        if (error) return;
        push.on('error', () => undefined);
        push.respond({ ':status': 200, 'content-type': 'application/json', 'content-length': PUSHED_BODY.length });
        push.end(PUSHED_BODY);
      });
    }
    sendWhole(ctx, twinBody(ctx, mode, { pushed }));
  },
});
