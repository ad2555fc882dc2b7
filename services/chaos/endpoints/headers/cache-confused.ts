import { CACHE_CONTROL, CACHE_MODES, cacheConfusedBody } from '../../../../shared/content/headers.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'cache-confused',
  path: '/cache-confused',
  category: 'headers',
  transports: HTTP1_AND_H2,
  summary: 'One Cache-Control header whose directives contradict each other',
  params: {
    mode: oneOf(CACHE_MODES, { default: 'all', description: 'which contradiction; all bundles the three in one header' }),
  },
  headers: ['Cache-Control', 'X-Chaos-Cache-Mode'],
  counterpart: '/cache-coherent',
  docs: {
    random: 'seeded',
  },
  handle(ctx, { mode }) {
    // Always exactly one Cache-Control line: the contradiction is inside it, not across duplicates.
    sendComplete(ctx, 200, 'application/json', cacheConfusedBody(mode), { 'Cache-Mode': mode }, [
      ['Cache-Control', CACHE_CONTROL[mode]],
    ]);
  },
});
