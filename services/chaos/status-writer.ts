// Writes a response whose status line is an arbitrary code with the /status
// semantics (DESIGN §8), for /status/{code} and /flaky's failures alike.
import { addChaosHeaders, chaosBaseHeaders, formatHead, reasonPhrase, type HeaderValue } from '../../shared/primitives/headers.js';
import { bodyFraming, isInterim } from '../../shared/content/status.js';
import { chaosHeadText, sendComplete, sendResponse, type ChaosContext } from './endpoint.js';
import { Wire } from './wire.js';

/** RFC 9110 §15.2: a server must not send a 1xx to an HTTP/1.0 client. */
export function canSendInterim(ctx: ChaosContext): boolean {
  return ctx.req.version === '1.1';
}

/**
 * - interim 1xx (not 101, which callers refuse first): the interim head, then
 *   a final 200 carrying `body`, in one write; no interim for HTTP/1.0;
 * - 204 and 304: the head only, without Content-Length or Content-Type;
 * - 205: Content-Length: 0 and no content;
 * - anything else: `body` as JSON with an accurate Content-Length.
 * The connection stays usable: every framing here is honest.
 */
export function sendStatus(ctx: ChaosContext, status: number, body: Buffer, extra: Readonly<Record<string, HeaderValue>>): void {
  if (isInterim(status)) {
    const interim = canSendInterim(ctx)
      ? formatHead(status, reasonPhrase(status), addChaosHeaders(chaosBaseHeaders(ctx.endpoint), extra))
      : '';
    const head = interim + chaosHeadText(ctx, 200, 'application/json', body.length, extra);
    if (ctx.wire instanceof Wire) {
      ctx.wire.respond(200, head, body);
      return;
    }
    ctx.wire.rawHead(head);
    ctx.wire.write(body);
    ctx.wire.end('keep-alive');
    return;
  }
  switch (bodyFraming(status)) {
    case 'none':
      sendResponse(ctx, status, undefined, undefined, undefined, extra);
      return;
    case 'empty':
      sendResponse(ctx, status, undefined, 0, undefined, extra);
      return;
    case 'json':
      sendComplete(ctx, status, 'application/json', body, extra);
      return;
  }
}
