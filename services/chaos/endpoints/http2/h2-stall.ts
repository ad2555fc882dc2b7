import { int } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { ERROR, headersFrame } from '../../http2/frames.js';
import { lieBody, lieFields, streamOf } from '../../http2/lies.js';

export default defineChaosEndpoint({
  id: 'h2-stall',
  path: '/h2/stall',
  category: 'http2',
  summary: 'HTTP/2: HEADERS promising the whole body, `after` bytes of DATA, then nothing: the stream stays open until MAX_RESPONSE_MS, then RST_STREAM CANCEL (a held response)',
  params: {
    after: int({ min: 0, max: 16_384, default: 6, description: 'body bytes sent before the stall' }),
  },
  headers: ['X-Chaos-Stall-After', 'X-Chaos-Promised-Bytes'],
  transports: H2_ONLY,
  // Like /stall on HTTP/1.1: the stream takes one of the client's MAX_HELD_PER_IP slots until it ends.
  holding: { longestMs: (config) => config.maxResponseMs },
  handle(ctx, { after }) {
    const stream = streamOf(ctx);
    const body = Buffer.concat([lieBody(ctx, 'stall'), Buffer.alloc(after + 1, 0x2e)]);
    stream.session.write(headersFrame(stream.id, lieFields(ctx, body.length, { 'Stall-After': after, 'Promised-Bytes': body.length }), false));
    if (after > 0) stream.data(body.subarray(0, after));
    // The rest never comes; at the cap the stream is reset (the timer dies with the connection).
    stream.session.setTimer(ctx.config.maxResponseMs, () => stream.rst(ERROR.CANCEL));
  },
});
