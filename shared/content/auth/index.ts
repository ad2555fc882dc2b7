// Twin content, auth family: what the auth endpoints and their control twins
// share. jwt.ts: the tokens of /jwt; challenges.ts: /auth-challenge,
// /auth-required, /auth-loop; test-key.ts: the published test key that signs
// the tokens (discovery's JWKS publishes its public half). This index is what
// the endpoints import.
export * from './challenges.js';
export * from './jwt.js';
export * from './test-key.js';
