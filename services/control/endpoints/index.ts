// The control host's registry: well-formed twins, in catalog order.
// One import and one list entry per endpoint, one per line.
import type { HttpContext, HttpEndpoint } from '../../../shared/http/http-service.js';
import { randomPool } from '../../../shared/registry/random-pick.js';
import { Registry } from '../../../shared/registry/registry.js';
import authRequired from './auth/auth-required.js';
import anything from './headers/anything.js';
import jwt from './auth/jwt.js';
import authChallenge from './auth/auth-challenge.js';
import authLoop from './auth/auth-loop.js';
import cacheCoherent from './headers/cache-coherent.js';
import dump from './headers/dump.js';
import cors from './headers/cors.js';
import corsExpose from './headers/cors-expose.js';
import corsPreflight from './headers/cors-preflight.js';
import etag from './headers/etag.js';
import headerFlood from './headers/header-flood.js';
import inspectHeaders from './headers/headers.js';
import ip from './headers/ip.js';
import keepaliveLie from './headers/keepalive-lie.js';
import matchedContentType from './headers/matched-content-type.js';
import duplicateHeaders from './headers/duplicate-headers.js';
import hugeHeader from './headers/huge-header.js';
import cookies from './headers/cookies.js';
import userAgent from './headers/user-agent.js';
import jwks from './auth/jwks.js';
import oauthAuthorizationServer from './auth/oauth-authorization-server.js';
import oauthAuthorize from './auth/oauth-authorize.js';
import oauthProtectedResource from './auth/oauth-protected-resource.js';
import oauthToken from './auth/oauth-token.js';
import openidConfiguration from './auth/openid-configuration.js';
import agentCard from './agent/agent-card.js';
import agentSkill from './agent/agent-skill.js';
import agentSkillsIndex from './agent/agent-skills-index.js';
import echoAgent from './agent/echo-agent.js';
import llmChatCompletions from './agent/llm-chat-completions.js';
import mcp from './agent/mcp.js';
import mcpServerCard from './agent/mcp-server-card.js';
import semanticDrift from './agent/semantic-drift.js';
import wellKnownChaos from './agent/well-known-chaos.js';
import adsTxt from './crawler-files/ads-txt.js';
import aiTxt from './crawler-files/ai-txt.js';
import appIcon from './crawler-files/app-icon.js';
import appleAppSiteAssociation from './crawler-files/apple-app-site-association.js';
import assetlinks from './crawler-files/assetlinks.js';
import atprotoDid from './crawler-files/atproto-did.js';
import didJson from './crawler-files/did-json.js';
import gpcJson from './crawler-files/gpc-json.js';
import humansTxt from './crawler-files/humans-txt.js';
import llmsTxt from './crawler-files/llms-txt.js';
import nodeinfo20 from './crawler-files/nodeinfo-2-0.js';
import nodeinfo from './crawler-files/nodeinfo.js';
import robotsTxt from './crawler-files/robots-txt.js';
import securityContact from './crawler-files/security-contact.js';
import securityTxt from './crawler-files/security-txt.js';
import sitemapXml from './crawler-files/sitemap-xml.js';
import webManifest from './crawler-files/web-manifest.js';
import webfinger from './crawler-files/webfinger.js';
import infinite from './infinite/infinite.js';
import drip from './latency/drip.js';
import stall from './latency/stall.js';
import slowHeaders from './latency/slow-headers.js';
import jitter from './latency/jitter.js';
import slow from './latency/slow.js';
import headLies from './method/head-lies.js';
import method from './method/method.js';
import bytes from './payload/bytes.js';
import cloudevents from './payload/cloudevents.js';
import chunked from './payload/chunked.js';
import compression from './payload/compression.js';
import garbage from './payload/garbage.js';
import json from './payload/json.js';
import jsonapi from './payload/jsonapi.js';
import pagination from './payload/pagination.js';
import paginationLink from './payload/pagination-link.js';
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
import retryMismatch from './rate-limiting/retry-mismatch.js';
import redirectChain from './status/redirect-chain.js';
import redirectCrossHost from './status/redirect-cross-host.js';
import redirectKinds from './status/redirect-kinds.js';
import redirectKindsTarget from './status/redirect-kinds-target.js';
import redirectLocation from './status/redirect-location.js';
import redirectLocationFinal from './status/redirect-location-final.js';
import redirectLoop from './status/redirect-loop.js';
import empty from './status/empty.js';
import failFirst from './status/fail-first.js';
import flaky from './status/flaky.js';
import mix from './status/mix.js';
import random from './status/random.js';
import reset from './status/reset.js';
import status from './status/status.js';
import statusLine from './status/status-line.js';
import weightedStatus from './status/weighted-status.js';

/** The control files of SPEC §4.2 and their app-linking and identity companions (README: Crawler, app-linking and federated files). */
export const crawlerFileEndpoints: readonly HttpEndpoint[] = [
  robotsTxt, sitemapXml, aiTxt, llmsTxt,
  appleAppSiteAssociation, assetlinks, webManifest, appIcon,
  atprotoDid, didJson, webfinger, nodeinfo, nodeinfo20,
  securityTxt, securityContact, adsTxt, humansTxt, gpcJson,
];

export const controlEndpoints: readonly HttpEndpoint[] = [
  slow,
  drip,
  stall,
  slowHeaders,
  jitter,
  status,
  statusLine,
  weightedStatus,
  flaky,
  failFirst,
  reset,
  empty,
  mix,
  random,
  truncate,
  partialStream,
  bytes,
  compression,
  garbage,
  chunked,
  range,
  json,
  cloudevents,
  jsonapi,
  problemDetails,
  pagination,
  paginationLink,
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
  matchedContentType,
  cacheCoherent,
  headerFlood,
  duplicateHeaders,
  hugeHeader,
  cookies,
  keepaliveLie,
  anything,
  inspectHeaders,
  ip,
  userAgent,
  dump,
  cors,
  corsPreflight,
  corsExpose,
  rateLimit,
  retryAfterFormats,
  throttle,
  retryMismatch,
  authRequired,
  jwt,
  authChallenge,
  authLoop,
  method,
  headLies,
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
  llmChatCompletions,
  wellKnownChaos,
  ...crawlerFileEndpoints,
  infinite,
];

export function createControlRegistry(): Registry<HttpContext> {
  const registry = new Registry('control', controlEndpoints);
  // Builds and checks the /random pool now, so a bad pool stops start-up.
  randomPool(registry);
  return registry;
}
