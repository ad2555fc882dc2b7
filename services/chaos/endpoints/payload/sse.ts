import { SSE_HEARTBEAT, SSE_MAX_MS, SSE_PARAMS, fitSse, readLastEventId, sseChaos, sseContentType } from '../../../../shared/content/payload/index.js';
import type { HeaderValue } from '../../../../shared/primitives/headers.js';
import { chaosHead, defineChaosEndpoint, type ChaosContext } from '../../endpoint.js';
import type { ResponseSink } from '../../wire.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';
import { unbatched } from '../../turn-writes.js';

/** One chunk of Transfer-Encoding: chunked framing (the stream has no length to promise). */
function chunk(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, Buffer.from('\r\n', 'latin1')]);
}
const LAST_CHUNK = '0\r\n\r\n';

/**
 * heartbeat-only: a comment line at once and every `interval` ms while under
 * `ms` (ceil(ms/interval) of them, on an absolute schedule, each after the
 * socket drained), then the last chunk at `ms`. Every wait is a wire timer,
 * so it dies with the socket.
 */
function heartbeats(wire: ResponseSink, interval: number, ms: number): void {
  const start = performance.now();
  const total = Math.ceil(ms / interval);
  const tick = (beat: number): void => {
    if (beat >= total) {
      wire.write(LAST_CHUNK);
      wire.end();
      return;
    }
    wire.write(chunk(SSE_HEARTBEAT));
    wire.whenWritable(() => {
      const due = start + (beat + 1 < total ? (beat + 1) * interval : ms) - performance.now();
      wire.setTimer(Math.max(0, due), () => tick(beat + 1));
    });
  };
  // The schedule starts as the first heartbeat leaves, so it leaves now, not with the turn's batch (turn-writes.ts).
  unbatched(() => tick(0));
}

export default defineChaosEndpoint({
  id: 'sse',
  path: '/sse',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'A text/event-stream that lies: no blank lines between events, invalid retry, ids going backwards, a cut mid-event, the wrong Content-Type, comment-only heartbeats until `ms` (within MAX_RESPONSE_MS), a resumption (Last-Event-ID) ignored, replayed from the start or skipping events, shuffled ids, an absurd retry, data lines without data:, an event type nobody listens to, mixed line endings',
  params: SSE_PARAMS,
  headers: ['X-Chaos-Sse-Mode', 'X-Chaos-Sse-Interval-Ms', 'X-Chaos-Sse-Ms', 'X-Chaos-Sse-Retry', 'X-Chaos-Sse-Skipped'],
  holding: {
    longestMs: (config) => Math.min(SSE_MAX_MS, config.maxResponseMs),
  },
  admission: {
    // Heartbeats longer than MAX_RESPONSE_MS are shortened, reported in X-Chaos-Clamped.
    adjust: (params, config) => fitSse(params, config.maxResponseMs),
  },
  handle(ctx: ChaosContext, { mode, interval, ms, seed }) {
    const wire = ctx.wire;
    const stream = sseChaos(mode, readLastEventId(ctx.req.headers.get('last-event-id')), seed);
    const extra: Record<string, HeaderValue> = mode === 'heartbeat-only' ? { 'Sse-Mode': mode, 'Sse-Interval-Ms': interval, 'Sse-Ms': ms } : { 'Sse-Mode': mode, ...stream.extra };
    wire.head(200, chaosHead(ctx, sseContentType(mode), undefined, extra).concat([['Cache-Control', 'no-cache'], ['Vary', 'Last-Event-ID'], ['Transfer-Encoding', 'chunked']]));
    if (mode === 'heartbeat-only') {
      if (wire.headOnly) wire.end();
      else heartbeats(wire, interval, ms);
      return;
    }
    for (const piece of stream.pieces) wire.write(chunk(piece));
    if (mode === 'cut-mid-event') {
      // The event stops mid-field and the connection closes without the last chunk.
      wire.end('close');
      return;
    }
    wire.write(LAST_CHUNK);
    wire.end();
  },
});
