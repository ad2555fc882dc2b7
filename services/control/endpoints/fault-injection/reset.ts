import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { RESET_PARAMS, resetTwinBody } from '../../../../shared/content/fault-injection/index.js';

export default defineControlEndpoint({
  id: 'reset',
  path: '/reset',
  category: 'status',
  summary: 'Twin of /reset: 200 with a JSON body naming where the chaos host would reset the connection',
  params: RESET_PARAMS,
  docs: {
    modeParam: 'phase',
  },
  handle(ctx, { phase, after }) {
    ctx.send(200, 'application/json', jsonBody(resetTwinBody(phase, after)));
  },
});
