import { ETAG_BODY, ETAG_LAST_MODIFIED, ETAG_STRONG, ETAG_UPDATED_AT, parseEntityTags, parseHttpDate, weakMatch } from '../../../../shared/content/headers.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

const VALIDATORS: HeaderList = [
  ['ETag', ETAG_STRONG],
  ['Last-Modified', ETAG_LAST_MODIFIED],
];

/** RFC 9110 §13.2.2: If-None-Match first; If-Modified-Since only without it. A field that does not parse is ignored. */
function notModified(ifNoneMatch: string | undefined, ifModifiedSince: string | undefined): boolean {
  if (ifNoneMatch !== undefined) {
    const tags = parseEntityTags(ifNoneMatch);
    if (tags) return weakMatch(tags, ETAG_STRONG);
  }
  if (ifModifiedSince !== undefined && ifNoneMatch === undefined) {
    const since = parseHttpDate(ifModifiedSince);
    if (since !== undefined) return ETAG_UPDATED_AT <= since;
  }
  return false;
}

export default defineControlEndpoint({
  id: 'etag',
  path: '/etag',
  category: 'headers',
  summary: 'Twin of /etag: one stable strong ETag and a past Last-Modified; 304 on a matching If-None-Match (weak comparison) or If-Modified-Since',
  params: {},
  headers: ['ETag', 'Last-Modified'],
  handle(ctx) {
    const { 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince } = ctx.req.headers;
    if (notModified(ifNoneMatch, ifModifiedSince)) {
      // 304: no body, no Content-Length; the validators a 200 would carry.
      ctx.res.writeHead(304, [...ctx.headers, ...VALIDATORS].flat());
      ctx.res.end();
      return;
    }
    ctx.send(200, 'application/json', ETAG_BODY, undefined, VALIDATORS);
  },
});
