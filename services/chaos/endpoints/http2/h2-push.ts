import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { ERROR, FLAG, headersFrame, pushPromiseFrame, rstStreamFrame } from '../../http2/frames.js';
import type { HeaderField } from '../../http2/hpack.js';
import { lieBody, lieData, lieFields, streamOf } from '../../http2/lies.js';

const MODES = ['when-disabled', 'even-parent', 'push-then-rst'] as const;

/** The request a push promises: /status/200 on the same authority. */
function promisedRequest(authority: string | undefined): HeaderField[] {
  return [[':method', 'GET'], [':scheme', 'http'], [':authority', authority ?? 'localhost'], [':path', '/status/200']];
}

export default defineChaosEndpoint({
  id: 'h2-push',
  path: '/h2/push',
  category: 'http2',
  summary: 'HTTP/2 server-push lies: PUSH_PROMISE to a client that may have disabled push (`when-disabled`; x-chaos-client-enable-push says what it sent), a PUSH_PROMISE on even stream 2 promising odd stream 3 (`even-parent`), or a promised response cut by RST_STREAM (`push-then-rst`)',
  params: { mode: oneOf(MODES, { default: 'when-disabled', description: 'which push lie' }) },
  headers: ['X-Chaos-Mode', 'X-Chaos-Client-Enable-Push'],
  transports: H2_ONLY,
  handle(ctx, { mode }) {
    const stream = streamOf(ctx);
    const { session, id } = stream;
    const body = lieBody(ctx, mode);
    const promised = id + 1;
    const request = promisedRequest(ctx.req.host);
    // The response's HEADERS first: a client that ends the connection at the PUSH_PROMISE has seen the x-chaos-* fields.
    session.write(headersFrame(id, lieFields(ctx, body.length, { Mode: mode, 'Client-Enable-Push': session.peerEnablePush }), false));
    if (mode === 'even-parent') {
      // On stream 2, which the client never opened (§6.6: only on a stream the peer opened), promising 3, an id of the client's (§5.1.1: ours are even).
      session.write(pushPromiseFrame(2, 3, request));
      lieData(session, id, body, FLAG.END_STREAM);
      return stream.socketClosed();
    }
    session.promised(promised);
    session.write(pushPromiseFrame(id, promised, request));
    lieData(session, id, body, FLAG.END_STREAM);
    const pushedBody = lieBody(ctx, `${mode} (pushed)`);
    session.write(headersFrame(promised, lieFields(ctx, pushedBody.length, { Mode: mode }), false));
    if (mode === 'when-disabled') lieData(session, promised, pushedBody, FLAG.END_STREAM);
    else {
      // Half the promised response, then the reset: the promise is broken mid-body.
      lieData(session, promised, pushedBody.subarray(0, pushedBody.length >> 1), 0);
      session.write(rstStreamFrame(promised, ERROR.INTERNAL_ERROR));
    }
    stream.socketClosed();
  },
});
