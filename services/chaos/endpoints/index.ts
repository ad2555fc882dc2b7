// The chaos host's registry: an explicit, ordered list (STYLE §1).
// One import and one list entry per endpoint, one per line.
import { randomPool } from '../../../shared/random-pick.js';
import { Registry } from '../../../shared/registry.js';
import type { ChaosContext, ChaosEndpoint } from '../endpoint.js';
import authRequired from './auth/auth-required.js';
import jwt from './auth/jwt.js';
import authChallenge from './auth/auth-challenge.js';
import authLoop from './auth/auth-loop.js';
import chunked from './fault-injection/chunked.js';
import empty from './fault-injection/empty.js';
import failFirst from './fault-injection/fail-first.js';
import flaky from './fault-injection/flaky.js';
import garbage from './fault-injection/garbage.js';
import keepaliveLie from './fault-injection/keepalive-lie.js';
import mix from './fault-injection/mix.js';
import random from './fault-injection/random.js';
import reset from './fault-injection/reset.js';
import retryMismatch from './fault-injection/retry-mismatch.js';
import cacheConfused from './headers/cache-confused.js';
import etag from './headers/etag.js';
import headerFlood from './headers/header-flood.js';
import wrongContentType from './headers/wrong-content-type.js';
import semanticDrift from './agent/semantic-drift.js';
import agentCard from './discovery/agent-card.js';
import agentSkillsIndex from './discovery/agent-skills-index.js';
import mcpServerCard from './discovery/mcp-server-card.js';
import jwks from './discovery/jwks.js';
import oauthAuthorizationServer from './discovery/oauth-authorization-server.js';
import oauthProtectedResource from './discovery/oauth-protected-resource.js';
import openidConfiguration from './discovery/openid-configuration.js';
import drip from './latency/drip.js';
import stall from './latency/stall.js';
import slow from './latency/slow.js';
import method from './method/method.js';
import bytes from './payload/bytes.js';
import compression from './payload/compression.js';
import json from './payload/json.js';
import sse from './payload/sse.js';
import ndjson from './payload/ndjson.js';
import xml from './payload/xml.js';
import charset from './payload/charset.js';
import partialStream from './payload/partial-stream.js';
import range from './payload/range.js';
import truncate from './payload/truncate.js';
import rateLimit from './rate-limiting/rate-limit.js';
import redirectChain from './redirects/redirect-chain.js';
import status from './status/status.js';

export const chaosEndpoints: readonly ChaosEndpoint[] = [
  slow,
  drip,
  stall,
  status,
  truncate,
  partialStream,
  bytes,
  compression,
  range,
  json,
  sse,
  ndjson,
  xml,
  charset,
  redirectChain,
  etag,
  wrongContentType,
  cacheConfused,
  headerFlood,
  rateLimit,
  flaky,
  retryMismatch,
  failFirst,
  reset,
  empty,
  garbage,
  chunked,
  keepaliveLie,
  mix,
  random,
  authRequired,
  jwt,
  authChallenge,
  authLoop,
  method,
  semanticDrift,
  openidConfiguration,
  oauthAuthorizationServer,
  agentCard,
  oauthProtectedResource,
  agentSkillsIndex,
  mcpServerCard,
  jwks,
];

export function createChaosRegistry(): Registry<ChaosContext> {
  const registry = new Registry('chaos', chaosEndpoints);
  // Builds and checks the /random pool now, so a bad pool stops start-up.
  randomPool(registry);
  return registry;
}
