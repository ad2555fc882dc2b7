import { SLOW_HEADERS_PARAMS, fitSlowHeaders, slowHeaderLines, slowHeadersBody, slowHeadersBoundMs } from '../../../../shared/content/latency.js';
import { formatHead } from '../../../../shared/primitives/headers.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'slow-headers',
  path: '/slow-headers',
  category: 'latency',
  transports: noH2(NO_H2.trickledHead),
  summary: 'The status line at once, then `lines` header lines `ms` apart (the head lasts at most 30 s); the last brings the ordinary lines and the body',
  params: SLOW_HEADERS_PARAMS,
  headers: ['X-Chaos-Header-Interval-Ms', 'X-Chaos-Header-Lines'],
  holding: {
    longestMs: (config) => slowHeadersBoundMs(config.maxResponseMs),
  },
  admission: {
    // A head longer than the bound gets a shorter interval, reported in X-Chaos-Clamped.
    adjust: (params, config) => fitSlowHeaders(params, config.maxResponseMs),
  },
  handle(ctx, { ms, lines }) {
    const body = slowHeadersBody(ms, lines, ms * lines);
    const slow = slowHeaderLines(lines);
    const rest = chaosHead(ctx, 'application/json', body.length, { 'Header-Interval-Ms': ms, 'Header-Lines': lines });
    // formatHead gives the status line, each line with its CRLF and the blank line; cut apart here.
    const [statusLine, ...lineTexts] = formatHead(200, 'OK', [...slow, ...rest]).split('\r\n');
    const slowTexts = lineTexts.slice(0, lines).map((line) => `${line}\r\n`);
    const restText = lineTexts.slice(lines).join('\r\n');
    ctx.wire.writeRaw(`${statusLine}\r\n`, 200);
    // On an absolute schedule from the status line; every timer dies with the socket.
    slowTexts.forEach((text, i) => {
      ctx.wire.setTimer((i + 1) * ms, () => {
        if (i < lines - 1) {
          ctx.wire.writeRaw(text, 200);
          return;
        }
        ctx.wire.writeRaw(text + restText, 200);
        ctx.wire.write(body);
        ctx.wire.end('keep-alive');
      });
    });
  },
});
