// The chaos host's registry: an explicit, ordered list (STYLE §1).
import { Registry } from '../../../shared/registry.js';
import type { ChaosContext, ChaosEndpoint } from '../endpoint.js';
import semanticDrift from './agent/semantic-drift.js';
import agentCard from './discovery/agent-card.js';
import agentSkillsIndex from './discovery/agent-skills-index.js';
import mcpServerCard from './discovery/mcp-server-card.js';
import oauthAuthorizationServer from './discovery/oauth-authorization-server.js';
import oauthProtectedResource from './discovery/oauth-protected-resource.js';
import openidConfiguration from './discovery/openid-configuration.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import bytes from './payload/bytes.js';
import partialStream from './payload/partial-stream.js';
import truncate from './payload/truncate.js';

export const chaosEndpoints: readonly ChaosEndpoint[] = [
  slow,
  drip,
  truncate,
  partialStream,
  bytes,
  semanticDrift,
  openidConfiguration,
  oauthAuthorizationServer,
  agentCard,
  oauthProtectedResource,
  agentSkillsIndex,
  mcpServerCard,
];

export function createChaosRegistry(): Registry<ChaosContext> {
  return new Registry('chaos', chaosEndpoints);
}
