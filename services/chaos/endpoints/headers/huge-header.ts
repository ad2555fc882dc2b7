import { HUGE_HEADER_NAME, HUGE_HEADER_PARAMS, hugeHeaderBody, hugeHeaderValue } from '../../../../shared/content/headers.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'huge-header',
  path: '/huge-header',
  category: 'headers',
  transports: HTTP1_AND_H2,
  summary: 'An ordinary JSON response with one header, X-Huge-Header, whose value is `size` bytes (up to 256 KiB)',
  params: HUGE_HEADER_PARAMS,
  headers: ['X-Chaos-Huge-Header', 'X-Chaos-Huge-Header-Bytes'],
  handle(ctx, { size }) {
    sendComplete(ctx, 200, 'application/json', hugeHeaderBody(size, false), { 'Huge-Header': HUGE_HEADER_NAME, 'Huge-Header-Bytes': size }, [
      [HUGE_HEADER_NAME, hugeHeaderValue(size)],
    ]);
  },
});
