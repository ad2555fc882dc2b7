import { CONTENT_TYPE_MODES, mislabelledBody } from '../../../../shared/content/headers.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'wrong-content-type',
  path: '/wrong-content-type',
  category: 'headers',
  summary: 'A body whose Content-Type names another format, or no Content-Type line at all',
  transports: HTTP1_AND_H2,
  params: {
    type: oneOf(CONTENT_TYPE_MODES, { default: 'json-as-html', description: 'real body format and the label it gets' }),
  },
  headers: ['X-Chaos-Payload', 'X-Chaos-Type-Mode', 'X-Chaos-Body-Format', 'X-Chaos-Actual-Format'],
  counterpart: '/matched-content-type',
  docs: {
    modeParam: 'type',
    random: 'seeded',
  },
  handle(ctx, { type }) {
    const { contentType, format, body } = mislabelledBody(type);
    // contentType undefined (type=missing): chaosHead writes no Content-Type line at all.
    ctx.wire.head(
      200,
      chaosHead(ctx, contentType, body.length, {
        Payload: 'wrong-content-type',
        'Type-Mode': type,
        'Body-Format': format,
        // Deprecated alias (SPEC §9.3), kept with the same value.
        'Actual-Format': format,
      }),
    );
    ctx.wire.write(body);
    ctx.wire.end();
  },
});
