// The control host's registry: well-formed twins, in catalog order.
// One import and one list entry per endpoint, one per line.
import type { HttpContext, HttpEndpoint } from '../../../shared/http-service.js';
import { randomPool } from '../../../shared/random-pick.js';
import { Registry } from '../../../shared/registry.js';
import authRequired from './auth/auth-required.js';
import cacheCoherent from './headers/cache-coherent.js';
import etag from './headers/etag.js';
import headerFlood from './headers/header-flood.js';
import matchedContentType from './headers/matched-content-type.js';
import jwks from './auth/jwks.js';
import oauthAuthorizationServer from './auth/oauth-authorization-server.js';
import oauthAuthorize from './auth/oauth-authorize.js';
import oauthProtectedResource from './auth/oauth-protected-resource.js';
import oauthToken from './auth/oauth-token.js';
import openidConfiguration from './auth/openid-configuration.js';
import agentCard from './crawler-files/agent-card.js';
import agentSkill from './crawler-files/agent-skill.js';
import agentSkillsIndex from './crawler-files/agent-skills-index.js';
import echoAgent from './crawler-files/echo-agent.js';
import mcp from './crawler-files/mcp.js';
import mcpServerCard from './crawler-files/mcp-server-card.js';
import semanticDrift from './crawler-files/semantic-drift.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import method from './method/method.js';
import bytes from './payload/bytes.js';
import compression from './payload/compression.js';
import json from './payload/json.js';
import partialStream from './payload/partial-stream.js';
import range from './payload/range.js';
import truncate from './payload/truncate.js';
import rateLimit from './rate-limiting/rate-limit.js';
import retryMismatch from './rate-limiting/retry-mismatch.js';
import redirectChain from './redirects/redirect-chain.js';
import flaky from './status/flaky.js';
import random from './status/random.js';
import status from './status/status.js';

export const controlEndpoints: readonly HttpEndpoint[] = [
  slow,
  drip,
  status,
  flaky,
  random,
  truncate,
  partialStream,
  bytes,
  compression,
  range,
  json,
  redirectChain,
  etag,
  matchedContentType,
  cacheCoherent,
  headerFlood,
  rateLimit,
  retryMismatch,
  authRequired,
  method,
  openidConfiguration,
  oauthAuthorizationServer,
  oauthProtectedResource,
  jwks,
  oauthAuthorize,
  oauthToken,
  semanticDrift,
  agentCard,
  agentSkillsIndex,
  agentSkill,
  mcpServerCard,
  echoAgent,
  mcp,
];

export function createControlRegistry(): Registry<HttpContext> {
  const registry = new Registry('control', controlEndpoints);
  // Builds and checks the /random pool now, so a bad pool stops start-up.
  randomPool(registry);
  return registry;
}
