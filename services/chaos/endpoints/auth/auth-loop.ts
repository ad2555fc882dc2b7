import { AUTH_LOOP_WINDOW_MS, authLoopKey, authLoopRealm } from '../../../../shared/content/auth/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'auth-loop',
  path: '/auth-loop',
  category: 'auth',
  transports: HTTP1_AND_H2,
  summary: 'Always 401, credentials or not, with a Basic realm that changes on every call: auth-loop-N for the client\'s N-th call in a 10-minute window',
  params: {},
  headers: ['WWW-Authenticate', 'X-Chaos-Auth-Loop-Attempt'],
  // Not in the /random pool: stateful, and a seed would replay a different answer.
  async handle(ctx) {
    // Counted per client address; the window starts at the first call and is not extended.
    const attempt = await ctx.store.countInWindow(authLoopKey(ctx.clientAddress), AUTH_LOOP_WINDOW_MS);
    const realm = authLoopRealm(attempt);
    const sent = ctx.req.headers.has('authorization');
    const body = { endpoint: '/auth-loop', attempt, realm, credentials_sent: sent, authenticated: false, note: 'no credentials pass; the realm changes on every call' };
    const more: [string, string][] = [['WWW-Authenticate', `Basic realm="${realm}"`], ['Cache-Control', 'no-store']];
    sendComplete(ctx, 401, 'application/json', jsonBody(body), { 'Auth-Loop-Attempt': attempt }, more);
  },
});
