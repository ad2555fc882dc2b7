// The control host's registry: well-formed twins, in catalog order.
import type { HttpContext, HttpEndpoint } from '../../../shared/http-service.js';
import { Registry } from '../../../shared/registry.js';
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
import bytes from './payload/bytes.js';
import partialStream from './payload/partial-stream.js';
import truncate from './payload/truncate.js';

export const controlEndpoints: readonly HttpEndpoint[] = [
  slow,
  drip,
  truncate,
  partialStream,
  bytes,
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
  return new Registry('control', controlEndpoints);
}
