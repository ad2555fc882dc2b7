import { distort, DROP_PARAM, inspectionMode, USER_AGENT_MODES, userAgentBody } from '../../../../shared/content/inspection.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { inspected } from './inspected.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'user-agent',
  path: '/user-agent',
  category: 'inspection',
  transports: HTTP1_AND_H2,
  summary: 'Echoes the User-Agent as `{"user-agent": …}`, left out (null) or cut in half as `mode` says',
  params: { mode: inspectionMode(USER_AGENT_MODES), drop: DROP_PARAM },
  headers: ['X-Chaos-Inspection-Mode'],
  wire: {
    capture: { rawHeaders: true },
  },
  handle(ctx, { mode, drop }) {
    sendComplete(ctx, 200, 'application/json', userAgentBody(distort(inspected(ctx), mode, drop)), { 'Inspection-Mode': mode });
  },
});
