import { CHALLENGE_LINES, CHALLENGE_PARAMS } from '../../../../shared/content/auth/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'auth-challenge',
  path: '/auth-challenge',
  category: 'auth',
  transports: HTTP1_AND_H2,
  summary: 'Always 401 with a malformed WWW-Authenticate (`mode`): an unclosed quote, an unknown scheme, contradictory challenges, Basic without realm, or one challenge split over two lines',
  params: CHALLENGE_PARAMS,
  headers: ['WWW-Authenticate', 'X-Chaos-Challenge-Mode'],
  // Not in the /random pool: its picks are pinned by seed, and a new member would move them.
  handle(ctx, { mode }) {
    const lines = CHALLENGE_LINES[mode];
    const body = { endpoint: '/auth-challenge', mode, authenticated: false, challenges: lines, note: 'no credentials can pass: the challenge is the fault' };
    sendComplete(ctx, 401, 'application/json', jsonBody(body), { 'Challenge-Mode': mode }, lines.map((line) => ['WWW-Authenticate', line] as const));
  },
});
