import { hostUrl } from '../../../../shared/catalog/catalog.js';
import { anythingBody, distort, INSPECTION_MODES, DROP_PARAM, inspectionMode } from '../../../../shared/content/inspection.js';
import { METHODS } from '../../../../shared/registry/registry.js';
import { str } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { INSPECT_CAPTURE, inspected } from './inspected.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'anything',
  path: '/anything/{path*}',
  aliases: ['/anything'],
  methods: [...METHODS],
  category: 'inspection',
  transports: noH2(NO_H2.body),
  summary: 'Echoes the request as JSON (method, path, args, headers in order, body as text or base64, client address), distorted as `mode` says',
  params: {
    mode: inspectionMode(INSPECTION_MODES),
    drop: DROP_PARAM,
    path: str({ in: 'path', maxLength: 8192, default: '', description: 'any sub-path (echoed in `path`)' }),
  },
  headers: ['X-Chaos-Inspection-Mode'],
  wire: {
    capture: INSPECT_CAPTURE,
  },
  docs: {
    example: { target: '/anything/hello?x=1' },
  },
  handle(ctx, { mode, drop }) {
    const body = anythingBody(distort(inspected(ctx), mode, drop), hostUrl('chaos', ctx.config.urls));
    sendComplete(ctx, 200, 'application/json', body, { 'Inspection-Mode': mode });
  },
});
