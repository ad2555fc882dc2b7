import { controlDocuments, CORS_ANY, LINKED_PATHS } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

// The skill file the index lists; the chaos index's digest and dead-URL lies
// are measured against these bytes.
export default defineControlEndpoint({
  id: 'agent-skill',
  path: LINKED_PATHS.skill,
  category: 'agent',
  // Linked from the discovery documents; no chaos endpoint lies about it.
  counterpart: null,
  summary: 'The SKILL.md the skills index lists: YAML front matter (name, description) and how to talk to the echo agent',
  params: {},
  handle(ctx) {
    ctx.send(200, 'text/markdown; charset=utf-8', controlDocuments(ctx.config).skill, undefined, CORS_ANY);
  },
});
