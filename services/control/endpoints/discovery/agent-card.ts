import { controlDocuments, CORS_ANY } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'agent-card',
  path: '/.well-known/agent-card.json',
  aliases: ['/.well-known/agent.json'],
  category: 'agent',
  summary: 'Twin of the chaos card: A2A agent card whose url is this host\'s /echo agent, which answers message/send',
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/json', controlDocuments(ctx.config).schemas['agent-card'], undefined, CORS_ANY);
  },
});
