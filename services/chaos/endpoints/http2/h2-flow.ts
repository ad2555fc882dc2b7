import { int, oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { dataFrame, ERROR, FLAG, headersFrame, MAX_WINDOW, rstStreamFrame, windowUpdateFrame } from '../../http2/frames.js';
import { lieBody, lieData, lieFields, namingGoaway, streamOf } from '../../http2/lies.js';

const MODES = ['window-overflow', 'exceed-window', 'zero-window-forever'] as const;

/** exceed-window sends at most this much: a client whose window is larger sees no lie (x-chaos-window says which). */
export const EXCEED_CAP_BYTES = 1024 * 1024;

export default defineChaosEndpoint({
  id: 'h2-flow',
  path: '/h2/flow',
  category: 'http2',
  summary: 'HTTP/2 flow-control lies: a WINDOW_UPDATE taking the client\'s connection window past 2^31-1 (`window-overflow`), DATA beyond the window the client advertised (`exceed-window`, ≤ 1 MiB), or a WINDOW_UPDATE of 0 and never another for the request body (`zero-window-forever`, answered after `ms`)',
  methods: ['GET', 'POST', 'PUT'],
  params: {
    mode: oneOf(MODES, { default: 'window-overflow', description: 'which flow-control lie' }),
    ms: int({ min: 100, max: 120_000, default: 10_000, description: 'zero-window-forever: how long before the answer (at most MAX_RESPONSE_MS)' }),
  },
  headers: ['X-Chaos-Mode', 'X-Chaos-Window', 'X-Chaos-Sent'],
  transports: H2_ONLY,
  holding: { longestMs: (config) => config.maxResponseMs, when: ({ mode }) => mode === 'zero-window-forever' },
  handle(ctx, { mode, ms }) {
    const stream = streamOf(ctx);
    const { session, id } = stream;
    const body = lieBody(ctx, mode);
    switch (mode) {
      case 'window-overflow':
        session.write(headersFrame(id, lieFields(ctx, body.length, { Mode: mode }), false));
        // The client's connection window is at least 1 (65,535 at the start): +2^31-1 passes the maximum, FLOW_CONTROL_ERROR (RFC 9113 §6.9.1).
        session.write(windowUpdateFrame(0, MAX_WINDOW));
        session.write(dataFrame(id, body, true));
        session.write(namingGoaway(id, mode));
        return session.destroyAfterFlush();
      case 'exceed-window': {
        const window = Math.max(0, Math.min(session.sendWindow, stream.sendWindow));
        const sent = Math.min(window + 1, EXCEED_CAP_BYTES);
        session.write(headersFrame(id, lieFields(ctx, sent, { Mode: mode, Window: window, Sent: sent }), false));
        // DATA within the frame size, ignoring the windows: one byte past them (§6.9.1: FLOW_CONTROL_ERROR).
        const chunk = Buffer.alloc(Math.min(sent, session.peerMaxFrame), 0x2e);
        for (let at = 0; at < sent; at += chunk.length) {
          const size = Math.min(chunk.length, sent - at);
          // Charged to the connection's window: it goes below zero as the client's does, and a second stream waits for WINDOW_UPDATE.
          lieData(session, id, chunk.subarray(0, size), at + size >= sent ? FLAG.END_STREAM : 0);
        }
        return stream.socketClosed();
      }
      case 'zero-window-forever':
        // An increment of 0: "MUST treat ... as a stream error of type PROTOCOL_ERROR" (§6.9); and the body's window never comes back.
        stream.windowWithheld = true;
        session.write(windowUpdateFrame(id, 0));
        session.setTimer(Math.min(ms, ctx.config.maxResponseMs), () => {
          stream.headers(200, lieFields(ctx, body.length, { Mode: mode }).slice(1), false);
          stream.data(body, true);
          // A body still owed is not wanted any more (§8.1).
          if (!stream.requestEnded) session.write(rstStreamFrame(id, ERROR.NO_ERROR));
        });
        return;
    }
  },
});

