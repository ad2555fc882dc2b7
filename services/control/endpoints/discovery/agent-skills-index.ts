import { controlDocuments, CORS_ANY } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'agent-skills-index',
  path: '/.well-known/agent-skills/index.json',
  category: 'agent',
  summary: 'Twin of the chaos index: Agent Skills index (draft 0.2.0) whose one skill url answers here and whose digest matches its bytes',
  params: {
    mode: oneOf(['bad-digest', 'missing-schema', 'skill-404', 'stale-version'], {
      default: 'bad-digest',
      description: 'accepted for parity; the control host serves the consistent index in every mode',
    }),
  },
  handle(ctx) {
    ctx.send(200, 'application/json', controlDocuments(ctx.config).skillsIndex, undefined, CORS_ANY);
  },
});
