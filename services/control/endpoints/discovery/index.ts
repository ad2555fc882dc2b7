// The control host's discovery folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/discovery/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import agentCard from './agent-card.js';
import agentSkill from './agent-skill.js';
import agentSkillsIndex from './agent-skills-index.js';
import echoAgent from './echo-agent.js';
import jwks from './jwks.js';
import mcpServerCard from './mcp-server-card.js';
import oauthAuthorizationServer from './oauth-authorization-server.js';
import oauthAuthorize from './oauth-authorize.js';
import oauthProtectedResource from './oauth-protected-resource.js';
import oauthToken from './oauth-token.js';
import openidConfiguration from './openid-configuration.js';
import wellKnownChaos from './well-known-chaos.js';

const endpoints: readonly HttpEndpoint[] = [
  openidConfiguration,
  oauthAuthorizationServer,
  agentCard,
  oauthProtectedResource,
  agentSkillsIndex,
  agentSkill,
  mcpServerCard,
  echoAgent,
  wellKnownChaos,
  jwks,
  oauthAuthorize,
  oauthToken,
];
export default endpoints;
