import { EXPOSE_LIST, EXPOSE_MODES, EXPOSED_HEADERS, MISNAMED_EXPOSE_LIST, corsBody, type ExposeMode } from '../../../../shared/content/cors.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

/** The mode's Access-Control-Expose-Headers line, if any. */
function exposeLines(mode: ExposeMode): HeaderList {
  switch (mode) {
    case 'omitted':
      return [];
    case 'misnamed':
      return [['Access-Control-Expose-Headers', MISNAMED_EXPOSE_LIST]];
    case 'wildcard-with-credentials':
      // With Allow-Credentials: true a browser reads `*` as a header literally named "*".
      return [['Access-Control-Expose-Headers', '*']];
  }
}

export default defineChaosEndpoint({
  id: 'cors-expose',
  path: '/cors-expose',
  category: 'cors',
  transports: HTTP1_AND_H2,
  summary: `Custom headers a script needs (${EXPOSE_LIST}) that Access-Control-Expose-Headers omits, misnames, or exposes as * with credentials`,
  params: {
    mode: oneOf(EXPOSE_MODES, { default: 'omitted', description: 'how the expose list fails the script' }),
  },
  headers: [
    'Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials', 'Access-Control-Expose-Headers', 'Vary',
    ...EXPOSED_HEADERS.map(([name]) => name), 'X-Chaos-Cors-Mode',
  ],
  handle(ctx, { mode }) {
    const origin = ctx.req.headers.get('origin');
    // The origin is allowed correctly: only the expose list is wrong.
    const lines: HeaderList = origin === undefined ? [['Vary', 'Origin']] : [
      ['Access-Control-Allow-Origin', origin], ['Access-Control-Allow-Credentials', 'true'], ['Vary', 'Origin'],
    ];
    lines.push(...EXPOSED_HEADERS, ...exposeLines(mode));
    sendComplete(ctx, 200, 'application/json', corsBody('/cors-expose', mode, origin, ctx.req.method), { 'Cors-Mode': mode }, lines);
  },
});
