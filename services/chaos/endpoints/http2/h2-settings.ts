import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { dataFrame, headersFrame, SETTING, settingsFrame } from '../../http2/frames.js';
import { lieBody, lieFields, namingGoaway, streamOf } from '../../http2/lies.js';

const MODES = ['max-frame-invalid', 'enable-push-1', 'initial-window-overflow'] as const;

/** The SETTINGS value each lie sends (RFC 9113 §6.5.2 says what is allowed). */
const LIES: Readonly<Record<(typeof MODES)[number], readonly [number, number]>> = {
  'max-frame-invalid': [SETTING.MAX_FRAME_SIZE, 1000], // below the 16,384 minimum: PROTOCOL_ERROR
  'enable-push-1': [SETTING.ENABLE_PUSH, 1], // "A server MUST NOT explicitly set this value to 1"
  'initial-window-overflow': [SETTING.INITIAL_WINDOW_SIZE, 2 ** 31], // above 2^31-1: FLOW_CONTROL_ERROR
};

export default defineChaosEndpoint({
  id: 'h2-settings',
  path: '/h2/settings',
  category: 'http2',
  summary: 'HTTP/2 SETTINGS lies before the response: SETTINGS_MAX_FRAME_SIZE 1000, SETTINGS_ENABLE_PUSH 1 from a server, SETTINGS_INITIAL_WINDOW_SIZE 2^31; the response follows, then a GOAWAY naming the lie',
  params: { mode: oneOf(MODES, { default: 'max-frame-invalid', description: 'which SETTINGS lie' }) },
  headers: ['X-Chaos-Mode'],
  transports: H2_ONLY,
  handle(ctx, { mode }) {
    const stream = streamOf(ctx);
    const { session, id } = stream;
    const body = lieBody(ctx, mode);
    session.write(settingsFrame([LIES[mode]]));
    session.write(headersFrame(id, lieFields(ctx, body.length, { Mode: mode }), false));
    session.write(dataFrame(id, body, true));
    // A client that stopped at the SETTINGS never read the fields: the GOAWAY names the lie.
    session.write(namingGoaway(id, mode));
    session.destroyAfterFlush();
  },
});
