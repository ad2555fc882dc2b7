import { chaosJwkSet, JWKS_PARAMS, JWKS_ROTATION_WINDOW_MS, jwksRotationKey, CORS_ANY } from '../../../../shared/content/discovery.js';
import type { HeaderList, HeaderValue } from '../../../../shared/primitives/headers.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'jwks',
  path: '/.well-known/jwks.json',
  category: 'discovery',
  transports: HTTP1_AND_H2,
  summary: 'A JWK Set that fails the tokens: the signing key under a kid no token names, a different key on every call, or the key marked use "enc"',
  params: JWKS_PARAMS,
  headers: ['X-Chaos-Jwks-Mode', 'X-Chaos-Jwks-Rotation'],
  // Not in the /random pool: rotating is stateful.
  async handle(ctx, { mode }) {
    const extra: Record<string, HeaderValue> = { 'Jwks-Mode': mode };
    let rotation = 0;
    if (mode === 'rotating') {
      // The client's n-th call in the window gets the n-th key: reproducible, and never the same twice in a row.
      rotation = await ctx.store.countInWindow(jwksRotationKey(ctx.clientAddress), JWKS_ROTATION_WINDOW_MS);
      extra['Jwks-Rotation'] = rotation;
    }
    const more: HeaderList = [...CORS_ANY, ['Cache-Control', 'no-store']];
    sendComplete(ctx, 200, 'application/jwk-set+json', jsonBody(chaosJwkSet(mode, rotation)), extra, more);
  },
});
