import {
  DUPLICATE_CONTENT_TYPES, DUPLICATE_HEADERS_PARAMS, DUPLICATED_HEADER, duplicateExtraLines, duplicateHeadersBody, duplicateStatus,
} from '../../../../shared/content/headers.js';
import { chaosHead, defineChaosEndpoint, withContext } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'duplicate-headers',
  path: '/duplicate-headers',
  category: 'headers',
  transports: HTTP1_AND_H2,
  summary: 'One header sent twice with different values (`mode`: Content-Type, Content-Length then a close, Cache-Control, Location on a 302), or two Set-Cookie lines folded with a comma',
  params: DUPLICATE_HEADERS_PARAMS,
  headers: ['X-Chaos-Duplicate-Mode', 'X-Chaos-Duplicated'],
  handle(ctx, { mode }) {
    const body = duplicateHeadersBody(mode);
    // Two lengths leave the framing undecidable: the connection cannot serve another response.
    const closing = mode === 'content-length';
    const headers = chaosHead(closing ? withContext(ctx, { keepAlive: false }) : ctx, 'application/json', body.length, {
      'Duplicate-Mode': mode,
      Duplicated: DUPLICATED_HEADER[mode],
    });
    // chaosHead starts with Content-Type then Content-Length: the second line goes right after the first.
    if (mode === 'content-type') headers.splice(1, 0, ['Content-Type', DUPLICATE_CONTENT_TYPES[1]]);
    if (mode === 'content-length') headers.splice(2, 0, ['Content-Length', String(2 * body.length)]);
    headers.push(...duplicateExtraLines(mode));
    ctx.wire.head(duplicateStatus(mode), headers);
    ctx.wire.write(body);
    ctx.wire.end(closing ? 'close' : 'keep-alive');
  },
});
