import { STATUS_LINE_PARAMS, STATUS_LINES, statusLineBody } from '../../../../shared/content/status.js';
import { chaosHead, defineChaosEndpoint, withContext } from '../../endpoint.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'status-line',
  path: '/status-line',
  category: 'status',
  transports: noH2(NO_H2.statusLine),
  summary: 'A 200 whose status line clients parse differently (`mode`): wrong, empty or no reason, HTTP/1.0, HTTP/2, four digits, lower case, or LF-only line ends; then a close',
  params: STATUS_LINE_PARAMS,
  headers: ['X-Chaos-Status-Line-Mode', 'X-Chaos-Status-Line-Sent'],
  wire: {
    cuts: 'close',
  },
  handle(ctx, { mode }) {
    const statusLine = STATUS_LINES[mode];
    const lineEnd = mode === 'lf-only' ? '\n' : '\r\n';
    const body = statusLineBody(mode, statusLine, mode === 'lf-only' ? 'LF' : 'CRLF');
    // The connection closes after it (Connection: close): a client that misread
    // this head must not misread the next response too. The line sent is quoted
    // so a trailing space survives header parsing.
    const headers = chaosHead(withContext(ctx, { keepAlive: false }), 'application/json', body.length, {
      'Status-Line-Mode': mode,
      'Status-Line-Sent': JSON.stringify(statusLine),
    });
    let head = `${statusLine}${lineEnd}`;
    for (const [name, value] of headers) head += `${name}: ${value}${lineEnd}`;
    ctx.wire.rawHead(`${head}${lineEnd}`);
    ctx.wire.write(body);
    ctx.wire.end('close');
  },
});
