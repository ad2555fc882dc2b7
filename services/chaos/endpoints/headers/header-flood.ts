import { FLOOD_ENTRIES, HEADER_FLOOD_MAX, headerFloodBody } from '../../../../shared/content/headers.js';
import { addChaosHeaders, type HeaderList } from '../../../../shared/primitives/headers.js';
import { int } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

/** X-Chaos-Header-001 … -100, built once; a response takes the first n. */
const FLOOD: HeaderList = addChaosHeaders([], Object.fromEntries(FLOOD_ENTRIES));

export default defineChaosEndpoint({
  id: 'header-flood',
  path: '/header-flood',
  category: 'headers',
  transports: HTTP1_AND_H2,
  summary: 'Adds n synthetic headers X-Chaos-Header-001 … (up to 100) to an otherwise ordinary JSON response',
  params: {
    n: int({ min: 1, max: HEADER_FLOOD_MAX, default: 20, description: 'number of synthetic headers' }),
  },
  headers: ['X-Chaos-Header-Count', 'X-Chaos-Header-NNN'],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { n }) {
    const body = headerFloodBody(n);
    sendComplete(ctx, 200, 'application/json', body, { 'Header-Count': n }, FLOOD.slice(0, n));
  },
});
