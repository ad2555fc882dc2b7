import { STALL_MAX_MS, STALL_PARAMS, fitStall, stallBody } from '../../../../shared/content/latency.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'stall',
  path: '/stall',
  category: 'latency',
  transports: HTTP1_AND_H2,
  summary: 'The head and `after` body bytes at once, then silence for `ms` before a clean close; the length promised one byte more (a timeout target)',
  params: STALL_PARAMS,
  headers: ['X-Chaos-Stall-After', 'X-Chaos-Stall-Ms', 'X-Chaos-Promised-Bytes'],
  holding: {
    longestMs: (config) => Math.min(STALL_MAX_MS, config.maxResponseMs),
  },
  admission: {
    // A silence longer than MAX_RESPONSE_MS is shortened, reported in X-Chaos-Clamped.
    adjust: (params, config) => fitStall(params, config.maxResponseMs),
  },
  wire: {
    cuts: 'close',
  },
  handle(ctx, { after, ms }) {
    const body = stallBody(after);
    ctx.wire.head(200, chaosHead(ctx, 'text/plain', body.length, { 'Stall-After': after, 'Stall-Ms': ms, 'Promised-Bytes': body.length }));
    ctx.wire.write(body.subarray(0, after));
    // The last byte never comes: the connection closes when the silence is over (the timer dies if the client leaves).
    ctx.wire.setTimer(ms, () => ctx.wire.end('close'));
  },
});
