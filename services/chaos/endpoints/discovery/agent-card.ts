import { agentCard, CONFLICT_GROUP, CORS_ANY, documentBody, LINKED_PATHS, perConfig } from '../../../../shared/content/discovery.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

// A valid A2A agent card served on the chaos host that names an agent on the
// agents host: the card and the agent it describes live on different hosts.
const agentUrl = perConfig((config) => config.urls.agents + LINKED_PATHS.echo);
const body = perConfig((config) => documentBody(agentCard(agentUrl(config))));

export default defineChaosEndpoint({
  id: 'agent-card',
  path: '/.well-known/agent-card.json',
  aliases: ['/.well-known/agent.json'],
  category: 'discovery',
  transports: HTTP1_AND_H2,
  summary: 'A2A agent card (also at the legacy /.well-known/agent.json) whose agent url is the agents host /echo',
  params: {},
  headers: ['X-Chaos-Conflict-Group', 'X-Chaos-Claims-Agent-Url'],
  docs: {
    random: 'seeded',
  },
  handle(ctx) {
    const extra = { 'Conflict-Group': CONFLICT_GROUP, 'Claims-Agent-Url': agentUrl(ctx.config) };
    sendComplete(ctx, 200, 'application/json', body(ctx.config), extra, CORS_ANY);
  },
});
