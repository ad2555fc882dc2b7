import { addChaosHeaders } from '../../../../shared/primitives/headers.js';
import { str } from '../../../../shared/primitives/params.js';
import { NEVER_PICKED, pickFor, randomPool } from '../../../../shared/registry/random-pick.js';
import { freshSeed } from '../../../../shared/primitives/seed.js';
import { defineChaosEndpoint, withContext } from '../../endpoint.js';
import { headerInject } from '../../faults/header-inject.js';
import { compose } from '../../faults/stage.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'random',
  path: '/random',
  category: 'fault-injection',
  transports: HTTP1_AND_H2,
  // The registry names what /random never picks (namingNeverPicked).
  summary: `Picks one chaos endpoint (never ${NEVER_PICKED}, which stall or hold the connection) and returns its response; \`seed\` decides the pick and is forwarded to it`,
  params: {
    seed: str({ maxLength: 256, description: 'decides the pick and is forwarded as its seed; omitted: a fresh seed, reported' }),
  },
  headers: ['X-Chaos-Random-From', 'X-Chaos-Random-Seed', 'X-Chaos-Random-Target'],
  handle(ctx, { seed }) {
    const used = seed ?? freshSeed();
    const pick = pickFor(randomPool(ctx.registry), used);
    // The X-Chaos-Random-* lines join whatever head the pick writes, however it writes it.
    const wire = compose(ctx.wire, [
      headerInject(addChaosHeaders([], { 'Random-From': pick.path, 'Random-Seed': encodeURIComponent(used), 'Random-Target': pick.target })),
    ]);
    // The picked endpoint answers as itself: its own X-Chaos-Category and X-Chaos-Endpoint.
    return pick.endpoint.handle(withContext(ctx, { wire, endpoint: pick.endpoint, clamped: [] }), pick.values);
  },
});

