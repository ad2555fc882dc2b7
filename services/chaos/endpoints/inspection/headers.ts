import { distort, HEADER_MODES, headersBody, DROP_PARAM, inspectionMode } from '../../../../shared/content/inspection.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { INSPECT_CAPTURE, inspected } from './inspected.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'headers',
  path: '/headers',
  category: 'inspection',
  transports: HTTP1_AND_H2,
  summary: 'Echoes the request header lines as JSON (an object and the lines in order), distorted as `mode` says',
  params: { mode: inspectionMode(HEADER_MODES), drop: DROP_PARAM },
  headers: ['X-Chaos-Inspection-Mode'],
  wire: {
    capture: INSPECT_CAPTURE,
  },
  handle(ctx, { mode, drop }) {
    sendComplete(ctx, 200, 'application/json', headersBody(distort(inspected(ctx), mode, drop)), { 'Inspection-Mode': mode });
  },
});
