import type { Settings } from 'node:http2';
import { SETTINGS_MODES, SETTINGS_PARAMS } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { H2_TWIN_TRANSPORTS, sendWhole, streamOf, twinBody } from '../../http2/twin.js';

/**
 * The valid SETTINGS each twin sends where its chaos twin sends a forbidden
 * value (RFC 9113 §6.5.2); never-ack and header-table-shrink-lie need none:
 * node:http2 acknowledges the client's SETTINGS and its encoder keeps to the
 * client's table size by itself.
 */
const VALID: Readonly<Record<(typeof SETTINGS_MODES)[number], Settings>> = {
  'max-frame-invalid': { maxFrameSize: 16_384 },
  'enable-push-1': { enablePush: false },
  'initial-window-overflow': { initialWindowSize: 2 ** 31 - 1 },
  'never-ack': {},
  'header-table-shrink-lie': {},
};

export default defineControlEndpoint({
  id: 'h2-settings',
  path: '/h2/settings',
  category: 'http2',
  summary: 'Twin of /h2/settings over HTTP/2 (node:http2): a SETTINGS frame with a valid value for the setting its chaos twin breaks (MAX_FRAME_SIZE 16384, ENABLE_PUSH 0, INITIAL_WINDOW_SIZE 2^31-1), the client\'s SETTINGS acknowledged, the response, and the connection left open',
  params: SETTINGS_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx, { mode }) {
    const settings = VALID[mode];
    if (Object.keys(settings).length > 0) streamOf(ctx).session?.settings(settings);
    sendWhole(ctx, twinBody(ctx, mode, { settings: JSON.stringify(settings) }));
  },
});
