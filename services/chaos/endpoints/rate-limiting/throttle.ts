import { THROTTLE_PARAMS, THROTTLE_RECORD_MS, secondsLeft, throttleBody, throttleStoreKey } from '../../../../shared/content/rate-limiting.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'throttle',
  path: '/throttle',
  // POST too: a throttled write, which a client must not resend blindly (the client exam's post-503 step).
  methods: ['GET', 'POST'],
  category: 'rate-limiting',
  transports: HTTP1_AND_H2,
  summary: 'Per `id`, 503 with a truthful Retry-After until `seconds` have passed since the first call, then 200; an early retry is told again',
  params: THROTTLE_PARAMS,
  headers: ['Retry-After', 'X-Chaos-Throttled'],
  // Not in the /random pool: stateful, and a seed would replay a different answer.
  async handle(ctx, { id, seconds }) {
    // Measured from the first call (the store's clock), never from the latest: retrying early gains nothing.
    const elapsed = await ctx.store.elapsedSinceFirst(throttleStoreKey(id), THROTTLE_RECORD_MS);
    const left = secondsLeft(seconds, elapsed);
    // no-store: a cache would hide the change from 503 to 200.
    const more: [string, string][] = [['Cache-Control', 'no-store']];
    if (left > 0) more.push(['Retry-After', String(left)]);
    sendComplete(ctx, left > 0 ? 503 : 200, 'application/json', throttleBody(id, seconds, elapsed, left > 0 ? left : null), { Throttled: left > 0 }, more);
  },
});
