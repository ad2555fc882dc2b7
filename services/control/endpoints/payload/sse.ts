import { SSE_PARAMS, SSE_VALID, fitSse, readLastEventId, sseTwinText } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

const BODY = Buffer.from(SSE_VALID, 'utf8');
// The body depends on Last-Event-ID, so a cache must key on it (RFC 9110 §12.5.5).
const SSE_CACHE_LINES: readonly (readonly [string, string])[] = [['Cache-Control', 'no-cache'], ['Vary', 'Last-Event-ID']];

export default defineControlEndpoint({
  id: 'sse',
  path: '/sse',
  category: 'payload',
  summary: 'Twin of /sse: a valid text/event-stream (retry: 3000, five events with increasing ids, each ended by a blank line), sent at once and ended cleanly; a reconnection with Last-Event-ID: N continues with id N+1',
  params: SSE_PARAMS,
  admission: {
    // Same reading of the URL as the chaos host: a longer ms is reported as lowered.
    adjust: (params, config) => fitSse(params, config.maxResponseMs),
  },
  handle(ctx) {
    const lastEventId = ctx.req.headers['last-event-id'];
    // node joins a repeated Last-Event-ID with ", ": not an id, so the stream starts from 1.
    const resumption = readLastEventId(Array.isArray(lastEventId) ? lastEventId.join(', ') : lastEventId);
    const body = resumption.kind === 'fresh' ? BODY : Buffer.from(sseTwinText(resumption), 'utf8');
    ctx.send(200, 'text/event-stream; charset=utf-8', body, undefined, SSE_CACHE_LINES);
  },
});
