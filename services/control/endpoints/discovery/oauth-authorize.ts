import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';

// The authorization_endpoint of this host's metadata. No client is registered,
// so every request is refused the way RFC 6749 §4.1.2.1 says for an unknown
// client: an error shown to the user, never a redirect.
const REFUSAL = jsonBody({
  error: 'invalid_request',
  error_description: 'no OAuth clients are registered on this host, so every authorization request is refused',
});

export default defineControlEndpoint({
  id: 'oauth-authorize',
  path: '/oauth/authorize',
  category: 'auth',
  // Linked from the discovery documents; no chaos endpoint lies about it.
  counterpart: null,
  summary: 'The authorization_endpoint this host\'s metadata names: 400 invalid_request, since no client is registered',
  params: {},
  handle(ctx) {
    ctx.send(400, 'application/json', REFUSAL, undefined, [['Cache-Control', 'no-store']]);
  },
});
