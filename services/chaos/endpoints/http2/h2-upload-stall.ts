import { int } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { DEFAULT_WINDOW, SETTING, settingsFrame } from '../../http2/frames.js';
import { lieBody, lieFields, streamOf } from '../../http2/lies.js';

export default defineChaosEndpoint({
  id: 'h2-upload-stall',
  path: '/h2/upload-stall',
  category: 'http2',
  summary: 'HTTP/2: after the request\'s HEADERS, SETTINGS_INITIAL_WINDOW_SIZE 0 and no window for the body, so the client cannot send it; after `ms` (≤ MAX_RESPONSE_MS) the window comes back, the body flows and the answer follows it',
  methods: ['GET', 'POST', 'PUT'],
  params: {
    ms: int({ min: 100, max: 120_000, default: 10_000, description: 'how long the upload stays stalled (at most MAX_RESPONSE_MS)' }),
  },
  headers: ['X-Chaos-Stall-Ms'],
  transports: H2_ONLY,
  holding: { longestMs: (config) => config.maxResponseMs },
  handle(ctx, { ms }) {
    const stream = streamOf(ctx);
    const { session, id } = stream;
    const wait = Math.min(ms, ctx.config.maxResponseMs);
    // Every stream's window drops to (what it had − 65,535): the body stops; DATA already in flight gets no window back.
    stream.windowWithheld = true;
    session.write(settingsFrame([[SETTING.INITIAL_WINDOW_SIZE, 0]]));
    session.setTimer(wait, () => {
      // The window comes back (the stream's too, what was withheld); the answer follows the body's end (the connection's cap bounds it).
      session.write(settingsFrame([[SETTING.INITIAL_WINDOW_SIZE, DEFAULT_WINDOW]]));
      stream.releaseWindow();
      stream.whenRequestEnded(() => {
        const body = lieBody(ctx, 'upload-stall');
        stream.headers(200, lieFields(ctx, body.length, { 'Stall-Ms': wait }).slice(1), false);
        stream.data(body, true);
      });
    });
  },
});
