import { int, oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { FLAG, frame, FRAME, headersFrame } from '../../http2/frames.js';
import { lieBody, lieData, lieFields, namingGoaway, streamOf } from '../../http2/lies.js';

const MODES = ['oversize-data', 'data-after-end-stream', 'continuation-orphan', 'headers-on-closed-stream', 'padding-lie', 'unknown-type'] as const;

export default defineChaosEndpoint({
  id: 'h2-frames',
  path: '/h2/frames',
  category: 'http2',
  summary: 'HTTP/2 framing lies: DATA larger than SETTINGS_MAX_FRAME_SIZE (`size` ≤ 64 KiB), DATA after END_STREAM, a CONTINUATION with no HEADERS, HEADERS on a closed stream, a pad length past the frame, or an unknown frame type (legal: clients must ignore it)',
  params: {
    mode: oneOf(MODES, { default: 'oversize-data', description: 'which framing lie' }),
    size: int({ min: 16_385, max: 65_536, default: 20_000, description: 'the oversize DATA frame\'s payload length' }),
  },
  headers: ['X-Chaos-Mode'],
  transports: H2_ONLY,
  handle(ctx, { mode, size }) {
    const stream = streamOf(ctx);
    const { session, id } = stream;
    const body = lieBody(ctx, mode);
    const head = (length: number | undefined, end = false): Buffer => headersFrame(id, lieFields(ctx, length, { Mode: mode }), end);
    const finish = (): void => stream.socketClosed();
    switch (mode) {
      case 'oversize-data':
        session.write(head(size));
        lieData(session, id, Buffer.alloc(size, 0x2e), FLAG.END_STREAM);
        return finish();
      case 'data-after-end-stream':
        session.write(head(body.length));
        lieData(session, id, body, FLAG.END_STREAM);
        lieData(session, id, Buffer.from('after END_STREAM'), 0);
        return finish();
      case 'continuation-orphan':
        // Before any HEADERS: the client may never see a field, so the GOAWAY that follows names the lie.
        session.write(frame(FRAME.CONTINUATION, FLAG.END_HEADERS, id, Buffer.from([0x88])));
        session.write(namingGoaway(id, mode));
        return session.destroyAfterFlush();
      case 'headers-on-closed-stream':
        session.write(head(body.length));
        lieData(session, id, body, FLAG.END_STREAM);
        session.write(head(undefined, true));
        return finish();
      case 'padding-lie': {
        session.write(head(body.length));
        // Pad Length 200 in a 10-byte payload: "MUST treat this as a connection error" (RFC 9113 §6.1).
        const payload = Buffer.concat([Buffer.from([200]), body.subarray(0, 9)]);
        lieData(session, id, payload, FLAG.PADDED | FLAG.END_STREAM);
        return finish();
      }
      case 'unknown-type':
        session.write(frame(0xfa, 0, id, Buffer.from('ignore me')));
        session.write(head(body.length));
        lieData(session, id, body, FLAG.END_STREAM);
        return finish();
    }
  },
});
