import { JSON_MODES, jsonChaosBody } from '../../../../shared/content/payload/index.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'json',
  path: '/json',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'Labelled application/json, never valid JSON: an unquoted key, a trailing comma, a missing closing brace, all three, or a valid document followed by garbage bytes',
  params: {
    mode: oneOf(JSON_MODES, { default: 'all', description: 'which defect; all bundles the first three in one payload; trailing-garbage appends bytes after a complete document' }),
  },
  headers: ['X-Chaos-Payload', 'X-Chaos-Json-Mode'],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { mode }) {
    // The lie is in the body only: the framing (Content-Length) is accurate.
    sendComplete(ctx, 200, 'application/json', jsonChaosBody(mode), { Payload: 'json-chaos', 'Json-Mode': mode });
  },
});
