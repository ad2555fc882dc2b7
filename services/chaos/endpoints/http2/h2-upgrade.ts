import { addChaosHeaders, addClampedHeader, chaosBaseHeaders, dateLine, headerLines } from '../../../../shared/primitives/headers.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { chaosHeadText, defineChaosEndpoint, sendRealError, withContext, type ChaosContext } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';
import { dataFrame, headersFrame } from '../../http2/frames.js';
import { asksH2c, readH2cUpgrade } from '../../http2/h2c.js';
import { lieBody, lieFields, namingGoaway } from '../../http2/lies.js';

const MODES = ['lie-101-then-h1', 'no-settings-frame'] as const;

/** The 101 as an honest upgrade sends it (h2c.ts), with Date and the X-Chaos-* lines naming the lie that follows. */
function switchingHead(ctx: ChaosContext, mode: string): string {
  const chaos = addChaosHeaders(addClampedHeader(chaosBaseHeaders(ctx.endpoint), ctx.clamped), { Mode: mode });
  return `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n${dateLine()}${headerLines(chaos)}\r\n`;
}

export default defineChaosEndpoint({
  id: 'h2-upgrade',
  path: '/h2/upgrade',
  category: 'http2',
  summary: 'h2c upgrade lies (RFC 7540 §3.2) to an HTTP/1.1 request asking `Upgrade: h2c`: 101 Switching Protocols, then an HTTP/1.1 response instead of HTTP/2 frames (`lie-101-then-h1`), or 101, then the response\'s HEADERS and DATA on stream 1 without the server\'s SETTINGS first (`no-settings-frame`); over prior knowledge a 200 saying so',
  params: { mode: oneOf(MODES, { default: 'lie-101-then-h1', description: 'which h2c upgrade lie' }) },
  headers: ['X-Chaos-Mode'],
  // The lies answer an HTTP/1.1 upgrade request; over HTTP/2 (prior knowledge, ALPN h2) there is no upgrade to lie about.
  transports: HTTP1_AND_H2,
  wire: { cuts: 'close' },
  handle(ctx, { mode }) {
    if (ctx.h2 !== undefined) {
      // HTTP/2 from the first byte (prior knowledge, ALPN h2): no 101 to lie with.
      const body = jsonBody({ endpoint: ctx.endpoint.path, mode, upgraded: false, reason: 'this connection is HTTP/2 from its first byte: the lie answers an HTTP/1.1 request with Upgrade: h2c' });
      ctx.h2.headers(200, lieFields(ctx, body.length, { Mode: mode }).slice(1), false);
      ctx.h2.data(body, true);
      return;
    }
    if (!asksH2c(ctx.req)) {
      sendRealError(ctx, 426, {
        error: 'upgrade_required',
        reason: `${ctx.endpoint.path} lies about the h2c upgrade: send an HTTP/1.1 request without TLS, with Upgrade: h2c, HTTP2-Settings and Connection: Upgrade, HTTP2-Settings (curl --http2, nghttp -u); docs/http2.md`,
      }, [['Upgrade', 'h2c']]);
      return;
    }
    const upgrade = readH2cUpgrade(ctx.req);
    if (typeof upgrade === 'string') return sendRealError(ctx, 400, { error: 'bad_request', reason: upgrade });
    const body = lieBody(ctx, mode);
    ctx.wire.rawHead(switchingHead(ctx, mode));
    if (mode === 'lie-101-then-h1') {
      // The client now expects the server's SETTINGS frame: it gets an HTTP/1.1 response, then a FIN.
      ctx.wire.writeRaw(chaosHeadText(withContext(ctx, { keepAlive: false }), 200, 'application/json', body.length, { Mode: mode }), 200);
      ctx.wire.writeRaw(body);
    } else {
      // The server's connection preface must be a SETTINGS frame, its first frame (RFC 9113 §3.4, RFC 7540 §3.5): none comes.
      ctx.wire.writeRaw(Buffer.concat([headersFrame(1, lieFields(ctx, body.length, { Mode: mode }), false), dataFrame(1, body, true), namingGoaway(1, mode)]), 101);
    }
    ctx.wire.end('close');
  },
});
