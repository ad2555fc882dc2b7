// The chaos host's discovery folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import agentCard from './agent-card.js';
import agentSkillsIndex from './agent-skills-index.js';
import jwks from './jwks.js';
import mcpServerCard from './mcp-server-card.js';
import oauthAuthorizationServer from './oauth-authorization-server.js';
import oauthProtectedResource from './oauth-protected-resource.js';
import openidConfiguration from './openid-configuration.js';
import wellKnownChaos from './well-known-chaos.js';

const endpoints: readonly ChaosEndpoint[] = [
  openidConfiguration,
  oauthAuthorizationServer,
  agentCard,
  oauthProtectedResource,
  agentSkillsIndex,
  mcpServerCard,
  wellKnownChaos,
  jwks,
];
export default endpoints;
