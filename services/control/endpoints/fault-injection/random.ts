import { addChaosHeaders } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { str } from '../../../../shared/primitives/params.js';
import { pickFor, randomPool } from '../../../../shared/registry/random-pick.js';

export default defineControlEndpoint({
  id: 'random',
  path: '/random',
  category: 'status',
  summary: "Twin of /random: a deterministic pick among this host's twins (seed default 42), run with its defaults and the seed",
  params: {
    // Deterministic even without a seed: the control host never draws fresh randomness.
    seed: str({ maxLength: 256, default: '42', description: 'decides the pick and is forwarded as its seed' }),
  },
  headers: ['X-Chaos-Random-From', 'X-Chaos-Random-Seed', 'X-Chaos-Random-Target'],
  handle(ctx, { seed }) {
    const pick = pickFor(randomPool(ctx.registry), seed);
    // ctx.send writes ctx.headers, so the picked twin's answer carries these too.
    addChaosHeaders(ctx.headers, { 'Random-From': pick.path, 'Random-Seed': encodeURIComponent(seed), 'Random-Target': pick.target });
    return pick.endpoint.handle({ ...ctx, endpoint: pick.endpoint }, pick.values);
  },
});
