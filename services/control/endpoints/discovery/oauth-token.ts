import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';

// The token_endpoint of this host's metadata: POST only (GET gets 405 with
// Allow). No client is registered, so client authentication always fails.
const REFUSAL = jsonBody({
  error: 'invalid_client',
  error_description: 'no OAuth clients are registered on this host, so no token is ever issued',
});

export default defineControlEndpoint({
  id: 'oauth-token',
  path: '/oauth/token',
  methods: ['POST'],
  category: 'auth',
  // Linked from the discovery documents; no chaos endpoint lies about it.
  counterpart: null,
  summary: 'The token_endpoint this host\'s metadata names: POST answers 400 invalid_client (RFC 6749 §5.2), since no client is registered',
  params: {},
  docs: {
    // No client is registered, so any grant gets the honest 400.
    example: { body: { type: 'application/x-www-form-urlencoded', text: 'grant_type=client_credentials&client_id=demo' } },
  },
  handle(ctx) {
    // RFC 6749 §5.1: token responses are never cached.
    ctx.send(400, 'application/json', REFUSAL, undefined, [
      ['Cache-Control', 'no-store'],
      ['Pragma', 'no-cache'],
    ]);
  },
});
