import type { HttpContext } from '../../../../shared/http/http-service.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { basicChallenge, defaultRealm } from '../../../../shared/content/auth/index.js';
import {
  bodyFraming, interimStatusBody, isInterim, protocolSwitchBody, STATUS_CODE, statusBody, switchesProtocols,
} from '../../../../shared/content/status.js';

/** The interims node:http can send through its public API; others get none (documented). */
function writeInterim(ctx: HttpContext, code: number): boolean {
  // RFC 9110 §15.2: never a 1xx to an HTTP/1.0 client.
  if (ctx.req.httpVersion !== '1.1') return false;
  switch (code) {
    case 100:
      ctx.res.writeContinue();
      return true;
    case 102:
      ctx.res.writeProcessing();
      return true;
    case 103:
      ctx.res.writeEarlyHints({ link: '</status/200>; rel=preload; as=fetch' });
      return true;
    default:
      return false;
  }
}

/** Final statuses' bodies depend only on the code: encoded once per code (at most the 500 codes the parameter accepts). */
const STATUS_BODIES = new Map<number, Buffer>();
function finalBody(code: number): Buffer {
  let body = STATUS_BODIES.get(code);
  if (body === undefined) STATUS_BODIES.set(code, (body = jsonBody(statusBody(code))));
  return body;
}

const NO_LINES: HeaderList = [];

/** Header fields RFC 9110 requires (MUST) or expects with a code, so each code means what it says. */
function requiredHeaders(ctx: HttpContext, code: number): HeaderList {
  switch (code) {
    case 301:
    case 302:
    case 303:
    case 307:
    case 308:
      return [['Location', `${ctx.config.urls.control}/status/200`]];
    case 401:
      return [['WWW-Authenticate', basicChallenge(defaultRealm(ctx.config))]];
    case 405:
      return [['Allow', 'GET, HEAD']];
    case 407:
      return [['Proxy-Authenticate', basicChallenge(defaultRealm(ctx.config))]];
    case 426:
      return [
        ['Upgrade', 'HTTP/2.0'],
        ['Connection', 'Upgrade'],
      ];
    default:
      return NO_LINES;
  }
}

export default defineControlEndpoint({
  id: 'status',
  path: '/status/{code}',
  category: 'status',
  summary: 'Twin of /status/{code}: the same status with the headers it requires (Location, WWW-Authenticate, Allow, …); 1xx as a real interim where node sends one',
  params: {
    code: STATUS_CODE,
  },
  docs: {
    example: { target: '/status/418' },
    random: 'seeded',
  },
  handle(ctx, { code }) {
    if (switchesProtocols(code)) {
      ctx.send(400, 'application/json', jsonBody(protocolSwitchBody(code)));
      return;
    }
    if (isInterim(code)) {
      // A 1xx is never final: the interim (when possible), then a final 200 naming it.
      const sent = writeInterim(ctx, code);
      ctx.send(200, 'application/json', jsonBody(interimStatusBody(code, sent)));
      return;
    }
    const more = requiredHeaders(ctx, code);
    switch (bodyFraming(code)) {
      case 'none':
        ctx.res.writeHead(code, [...ctx.headers, ...more].flat());
        ctx.res.end();
        return;
      case 'empty':
        ctx.res.writeHead(code, [['Content-Length', '0'], ...ctx.headers, ...more].flat());
        ctx.res.end();
        return;
      case 'json':
        ctx.send(code, 'application/json', finalBody(code), undefined, more);
        return;
    }
  },
});
