// The chaos host's registry: an explicit, ordered list (STYLE §1).
// One import and one list entry per endpoint, one per line.
import { randomPool } from '../../../shared/registry/random-pick.js';
import { Registry } from '../../../shared/registry/registry.js';
import type { ChaosContext, ChaosEndpoint } from '../endpoint.js';
import authRequired from './auth/auth-required.js';
import cors from './cors/cors.js';
import corsExpose from './cors/cors-expose.js';
import corsPreflight from './cors/cors-preflight.js';
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
import anything from './inspection/anything.js';
import dump from './inspection/dump.js';
import inspectHeaders from './inspection/headers.js';
import ip from './inspection/ip.js';
import userAgent from './inspection/user-agent.js';
import wrongContentType from './headers/wrong-content-type.js';
import duplicateHeaders from './headers/duplicate-headers.js';
import hugeHeader from './headers/huge-header.js';
import cookies from './headers/cookies.js';
import llmChatCompletions from './agent/llm-chat-completions.js';
import mcp from './agent/mcp.js';
import semanticDrift from './agent/semantic-drift.js';
import agentCard from './discovery/agent-card.js';
import agentSkillsIndex from './discovery/agent-skills-index.js';
import mcpServerCard from './discovery/mcp-server-card.js';
import jwks from './discovery/jwks.js';
import oauthAuthorizationServer from './discovery/oauth-authorization-server.js';
import oauthProtectedResource from './discovery/oauth-protected-resource.js';
import openidConfiguration from './discovery/openid-configuration.js';
import wellKnownChaos from './discovery/well-known-chaos.js';
import drip from './latency/drip.js';
import stall from './latency/stall.js';
import slowHeaders from './latency/slow-headers.js';
import jitter from './latency/jitter.js';
import slow from './latency/slow.js';
import headLies from './method/head-lies.js';
import method from './method/method.js';
import pagination from './pagination/pagination.js';
import paginationLink from './pagination/pagination-link.js';
import bytes from './payload/bytes.js';
import cloudevents from './payload/cloudevents.js';
import compression from './payload/compression.js';
import json from './payload/json.js';
import jsonapi from './payload/jsonapi.js';
import sse from './payload/sse.js';
import ndjson from './payload/ndjson.js';
import xml from './payload/xml.js';
import charset from './payload/charset.js';
import partialStream from './payload/partial-stream.js';
import problemDetails from './payload/problem-details.js';
import range from './payload/range.js';
import truncate from './payload/truncate.js';
import rateLimit from './rate-limiting/rate-limit.js';
import retryAfterFormats from './rate-limiting/retry-after-formats.js';
import throttle from './rate-limiting/throttle.js';
import redirectChain from './redirects/redirect-chain.js';
import redirectCrossHost from './redirects/redirect-cross-host.js';
import redirectKinds from './redirects/redirect-kinds.js';
import redirectKindsTarget from './redirects/redirect-kinds-target.js';
import redirectLocation from './redirects/redirect-location.js';
import redirectLocationFinal from './redirects/redirect-location-final.js';
import redirectLoop from './redirects/redirect-loop.js';
import status from './status/status.js';
import statusLine from './status/status-line.js';
import weightedStatus from './status/weighted-status.js';

export const chaosEndpoints: readonly ChaosEndpoint[] = [
  slow,
  drip,
  stall,
  slowHeaders,
  jitter,
  status,
  statusLine,
  weightedStatus,
  truncate,
  partialStream,
  bytes,
  compression,
  range,
  json,
  cloudevents,
  jsonapi,
  problemDetails,
  sse,
  ndjson,
  xml,
  charset,
  redirectChain,
  redirectLoop,
  redirectKinds,
  redirectKindsTarget,
  redirectLocation,
  redirectLocationFinal,
  redirectCrossHost,
  etag,
  wrongContentType,
  cacheConfused,
  headerFlood,
  duplicateHeaders,
  hugeHeader,
  cookies,
  rateLimit,
  retryAfterFormats,
  throttle,
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
  anything,
  inspectHeaders,
  ip,
  userAgent,
  dump,
  authRequired,
  cors,
  corsPreflight,
  corsExpose,
  jwt,
  authChallenge,
  authLoop,
  method,
  headLies,
  semanticDrift,
  llmChatCompletions,
  mcp,
  openidConfiguration,
  oauthAuthorizationServer,
  agentCard,
  oauthProtectedResource,
  agentSkillsIndex,
  mcpServerCard,
  pagination,
  paginationLink,
  wellKnownChaos,
  jwks,
];

export function createChaosRegistry(): Registry<ChaosContext> {
  const registry = new Registry('chaos', chaosEndpoints);
  // Builds and checks the /random pool now, so a bad pool stops start-up.
  randomPool(registry);
  return registry;
}
