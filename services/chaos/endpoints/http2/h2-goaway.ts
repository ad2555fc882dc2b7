import { int, oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { dataFrame, headersFrame, MAX_WINDOW } from '../../http2/frames.js';
import { lieBody, lieFields, namingGoaway, streamOf } from '../../http2/lies.js';

const MODES = ['zero', 'max-then-close', 'increasing', 'after-response'] as const;

export default defineChaosEndpoint({
  id: 'h2-goaway',
  path: '/h2/goaway',
  category: 'http2',
  summary: 'HTTP/2 GOAWAY lies: last-stream-id 0 before the response (`zero`), 2^31-1 then a cut mid-body (`max-then-close`), a second GOAWAY raising the id (`increasing`), or GOAWAY with `code` after a whole response (`after-response`)',
  params: {
    mode: oneOf(MODES, { default: 'zero', description: 'which GOAWAY lie' }),
    code: int({ min: 0, max: 13, default: 0, description: 'the GOAWAY error code' }),
  },
  headers: ['X-Chaos-Mode'],
  transports: H2_ONLY,
  wire: { cuts: 'close' },
  handle(ctx, { mode, code }) {
    const stream = streamOf(ctx);
    const { session, id } = stream;
    const body = lieBody(ctx, mode);
    const head = (length: number | undefined): Buffer => headersFrame(id, lieFields(ctx, length, { Mode: mode }), false);
    switch (mode) {
      case 'zero':
        // The request was never processed (RFC 9113 §6.8): a client may retry it, and is told so before any answer.
        session.write(namingGoaway(0, mode, code));
        return session.destroyAfterFlush();
      case 'max-then-close':
        session.write(namingGoaway(MAX_WINDOW, mode, code));
        session.write(head(body.length * 2));
        session.write(dataFrame(id, body, false));
        return session.destroyAfterFlush();
      case 'increasing':
        // §6.8: "Endpoints MUST NOT increase the value they send in the last stream identifier".
        session.write(namingGoaway(id, mode, code));
        session.write(namingGoaway(id + 98, mode, code));
        session.write(head(body.length));
        session.write(dataFrame(id, body, true));
        return session.destroyAfterFlush();
      case 'after-response':
        session.write(head(body.length));
        session.write(dataFrame(id, body, true));
        session.write(namingGoaway(id, mode, code));
        return session.destroyAfterFlush();
    }
  },
});
