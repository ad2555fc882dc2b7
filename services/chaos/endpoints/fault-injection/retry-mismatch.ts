import { jsonBody } from '../../../../shared/primitives/json.js';
import { RETRY_PARAMS, RETRY_WINDOW_MS, retryBody, retryStoreKey } from '../../../../shared/content/fault-injection/index.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'retry-mismatch',
  path: '/retry-mismatch',
  category: 'fault-injection',
  transports: HTTP1_AND_H2,
  summary: 'First call for an `id`: data.version 1; every further call within 60 s of the first: version 2, same shape, different items',
  params: RETRY_PARAMS,
  headers: ['X-Chaos-Retry-Replayed', 'X-Chaos-Retry-Version'],
  docs: {
    // Stateful: the same seed through /random does not give the same answer twice.
    random: 'unseeded',
  },
  async handle(ctx, { id }) {
    // The window starts at the first call and is not extended by later ones (SPEC §3, DESIGN §8).
    const calls = await ctx.store.countInWindow(retryStoreKey(id), RETRY_WINDOW_MS);
    const version = calls === 1 ? 1 : 2;
    sendComplete(ctx, 200, 'application/json', jsonBody(retryBody(id, version)), { 'Retry-Replayed': version === 2, 'Retry-Version': version }, [
      // A cache between client and server would hide the state change.
      ['Cache-Control', 'no-store'],
    ]);
  },
});
