import { BODY_BYTES_HEADER, distortLines, HEADER_MODES, DROP_PARAM, inspectionMode, rebuildHead } from '../../../../shared/content/inspection.js';
import { METHODS } from '../../../../shared/registry/registry.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { INSPECT_CAPTURE } from './inspected.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'dump',
  path: '/dump',
  methods: [...METHODS],
  category: 'inspection',
  transports: noH2(NO_H2.rawRequest),
  summary: 'The request as text/plain, byte for byte as received (head, then the first 64 KiB of the decoded body); other modes distort the header lines',
  params: { mode: inspectionMode(HEADER_MODES), drop: DROP_PARAM },
  headers: ['X-Chaos-Inspection-Mode', BODY_BYTES_HEADER],
  wire: {
    capture: INSPECT_CAPTURE,
  },
  handle(ctx, { mode, drop }) {
    const { req } = ctx;
    const received = req.rawHead as Buffer;
    const head = mode === 'faithful'
      ? received
      : rebuildHead(received.toString('latin1', 0, received.indexOf('\r\n')), distortLines(req.rawHeaders ?? [], mode, drop));
    const body = Buffer.concat([head, req.body ?? Buffer.alloc(0)]);
    sendComplete(ctx, 200, 'text/plain', body, { 'Inspection-Mode': mode }, [[BODY_BYTES_HEADER, String(req.bodyBytes)]]);
  },
});
