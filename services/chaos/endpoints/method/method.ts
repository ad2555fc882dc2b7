import { ALLOW_SIX, ALLOW_TRUE, METHOD_MODES, SIX_METHODS, methodGetBody, type MethodMode } from '../../../../shared/content/method.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { chaosHead, defineChaosEndpoint, type ChaosContext } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

/** The Allow line each mode sends on its 405; undefined = no Allow line. */
const ALLOW_ON_405: Readonly<Record<MethodMode, string | undefined>> = {
  'lying-allow': ALLOW_SIX,
  'silent-on-wrong-method': undefined, // never sends a 405
  '405-without-allow': undefined,
  'options-mismatch': ALLOW_TRUE,
};

export default defineChaosEndpoint({
  id: 'method',
  path: '/method',
  methods: [...SIX_METHODS],
  category: 'method',
  transports: HTTP1_AND_H2,
  summary: 'Only GET is handled; other methods get a lying Allow, a silent 200, a bare 405, or an OPTIONS that contradicts the 405',
  params: {
    mode: oneOf(METHOD_MODES, { default: 'lying-allow', description: 'how methods other than GET are answered' }),
  },
  headers: ['Allow', 'X-Chaos-Method-Mode', 'X-Chaos-Request-Method'],
  // No `random`: /random picks with GET, which always gets the honest explanation here.
  handle(ctx, { mode }) {
    const method = ctx.req.method;
    const extra = { 'Method-Mode': mode, 'Request-Method': method };
    if (method === 'GET' || method === 'HEAD') {
      const body = methodGetBody(mode);
      send(ctx, 200, 'application/json', body, extra, undefined);
      return;
    }
    if (method === 'OPTIONS' && mode === 'options-mismatch') {
      // DESIGN §8: only this mode gives OPTIONS an answer of its own, 204 advertising
      // the six methods its 405 refuses; no body, no Content-Length. In the other
      // modes OPTIONS is a non-GET method like the rest (SPEC §4.1's table).
      send(ctx, 204, undefined, undefined, extra, ALLOW_SIX);
      return;
    }
    if (mode === 'silent-on-wrong-method') {
      // 200 with an empty body: the request "worked", nothing was done.
      send(ctx, 200, undefined, EMPTY, extra, undefined);
      return;
    }
    send(ctx, 405, 'application/json', jsonBody({ endpoint: '/method', mode, method, status: 405 }), extra, ALLOW_ON_405[mode]);
  },
});

const EMPTY = Buffer.alloc(0);

function send(
  ctx: ChaosContext,
  status: number,
  contentType: string | undefined,
  body: Buffer | undefined,
  extra: Readonly<Record<string, string>>,
  allow: string | undefined,
): void {
  const headers = chaosHead(ctx, contentType, body?.length, extra);
  if (allow !== undefined) headers.push(['Allow', allow]);
  ctx.wire.head(status, headers);
  if (body) ctx.wire.write(body);
  ctx.wire.end();
}
