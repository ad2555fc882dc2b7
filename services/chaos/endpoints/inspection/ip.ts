import { distort, inspectionMode, IP_MODES, ipBody } from '../../../../shared/content/inspection.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { inspected } from './inspected.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'ip',
  path: '/ip',
  category: 'inspection',
  transports: HTTP1_AND_H2,
  summary: 'Echoes the client address the service computed (PROXY v2 behind a trusted proxy) as `{"origin": …}`, or a documentation address for mode=wrong-ip',
  params: { mode: inspectionMode(IP_MODES) },
  headers: ['X-Chaos-Inspection-Mode'],
  handle(ctx, { mode }) {
    sendComplete(ctx, 200, 'application/json', ipBody(distort(inspected(ctx), mode, undefined)), { 'Inspection-Mode': mode });
  },
});
