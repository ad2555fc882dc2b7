import { int } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { headersFrame } from '../../http2/frames.js';
import { lieBody, lieFields, streamOf } from '../../http2/lies.js';

export default defineChaosEndpoint({
  id: 'h2-rst',
  path: '/h2/rst',
  category: 'http2',
  summary: 'HTTP/2: HEADERS promising the whole body, `at` bytes of DATA, then RST_STREAM with error `code` (default INTERNAL_ERROR)',
  params: {
    at: int({ min: 0, max: 16_384, default: 6, description: 'body bytes sent before the reset' }),
    code: int({ min: 0, max: 13, default: 2, description: 'the RST_STREAM error code (RFC 9113 §7)' }),
  },
  headers: ['X-Chaos-Rst-Code', 'X-Chaos-Rst-At'],
  transports: H2_ONLY,
  handle(ctx, { at, code }) {
    const stream = streamOf(ctx);
    const body = Buffer.concat([lieBody(ctx, 'rst'), Buffer.alloc(Math.max(0, at), 0x2e)]);
    stream.session.write(headersFrame(stream.id, lieFields(ctx, body.length, { 'Rst-Code': code, 'Rst-At': at }), false));
    if (at > 0) stream.data(body.subarray(0, at));
    stream.rst(code);
  },
});
