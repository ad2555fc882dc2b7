// Chromium's client cells (issue 27): headless Chromium (Debian's, driven by
// playwright-core) opens every chaos WebSocket lie from a page, and the
// control twin at the same path and query. Its console text (CDP
// Log.entryAdded) names each failure; the twin must give none.
import { existsSync } from 'node:fs';
import t from 'tap';
import { chromiumWebSocket } from '../../../scripts/scorecard/ws-clients.js';
import { CHROMIUM, probeTab } from '../../helpers/chromium.js';
import { startChaos, startHttp } from '../../helpers/servers.js';



/** A lie and Chromium's reaction: the console text it logs (and close 1006), or the close code it reports, or `open`. */
const CELLS: readonly (readonly [path: string, reaction: RegExp | number | 'open', protocol?: string])[] = [
  ['/ws/frames?mode=masked', /A server must not mask any frames that it sends to the client/],
  ['/ws/frames?mode=rsv1', /One or more reserved bits are on: reserved1 = 1/],
  ['/ws/frames?mode=rsv2', /One or more reserved bits are on: reserved1 = 0, reserved2 = 1/],
  ['/ws/frames?mode=fragmented-ping', /Invalid frame header/],
  ['/ws/frames?mode=oversized-ping', /Invalid frame header/],
  ['/ws/frames?mode=invalid-utf8', /Could not decode a text frame as UTF-8/],
  ['/ws/frames?mode=unknown-opcode', /Unrecognized frame opcode: 3/],
  ['/ws/frames?mode=orphan-continuation', /Received unexpected continuation frame/],
  ['/ws/frames?mode=interleaved-fragments', /Received start of new message but previous message is unfinished/],
  // The split: Chromium fails on data after close, and accepts close code 999 (Node, ws and websockets do the reverse).
  ['/ws/frames?mode=data-after-close', /Data frame received after close/],
  ['/ws/close?mode=invalid-code', 999],
  ['/ws/close?mode=reserved-code', /broken close frame containing a reserved status code/],
  ['/ws/close?mode=one-byte-body', /broken close frame with an invalid size of 1 byte/],
  ['/ws/close?mode=invalid-utf8-reason', /broken close frame containing invalid UTF-8/],
  ['/ws/close?mode=no-close-frame', 1006],
  ['/ws/close?mode=reset', 1006],
  ['/ws/handshake?mode=bad-accept', /Incorrect 'Sec-WebSocket-Accept' header value/],
  ['/ws/handshake?mode=protocol-not-offered', /must not include 'Sec-WebSocket-Protocol' header if not present in request/],
  ['/ws/handshake?mode=protocol-missing', /Sent non-empty 'Sec-WebSocket-Protocol' header but no response was received/, 'chat'],
  ['/ws/handshake?mode=extension-not-offered', /Found an unsupported extension/],
  ['/ws/handshake?mode=status-200', /Unexpected response code: 200/],
  ['/ws/handshake?mode=no-upgrade-header', /'Upgrade' header is missing/],
  ['/ws/handshake?mode=http-1.0-101', 'open'],
  ['/ws/deflate?mode=bad-window-bits', /Received invalid server_max_window_bits parameter/],
  ['/ws/deflate?mode=bad-inflate', /Invalid frame header/],
  ['/ws/deflate?mode=control-rsv1', /One or more reserved bits are on: reserved1 = 1/],
];

t.test('headless Chromium: the console names each chaos lie; the control twins give no failure', async (t) => {
  t.ok(existsSync(CHROMIUM), `${CHROMIUM} is installed (make tools installs the chromium package)`);
  if (!existsSync(CHROMIUM)) return;
  const { port: chaos } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  const tab = await probeTab(t, 'websocket probe');
  const open = await chromiumWebSocket(tab);

  for (const [path, reaction, protocol] of CELLS) {
    const lie = await open(`ws://127.0.0.1:${chaos}${path}`, protocol);
    const logged = lie.console.join(' | ');
    if (reaction instanceof RegExp) {
      t.ok(lie.error && lie.code === 1006, `chaos ${path}: error, close 1006 (saw ${JSON.stringify(lie)})`);
      t.match(logged, reaction, `chaos ${path}: the console says ${String(reaction)}`);
    } else if (reaction === 'open') t.ok(lie.open && !lie.error && lie.code === null, `chaos ${path}: accepted (saw ${JSON.stringify(lie)})`);
    else t.ok(!lie.error && lie.code === reaction, `chaos ${path}: close event ${reaction}, no error (saw ${JSON.stringify(lie)}, console ${logged})`);
    const twin = await open(`ws://127.0.0.1:${control}${path}`, protocol);
    t.ok(twin.open && !twin.error && (twin.code === null || twin.code === 1000), `control ${path}: no failure (saw ${JSON.stringify(twin)})`);
    t.equal(twin.console.length, 0, `control ${path}: nothing in the console`);
  }
  const flood = await open(`ws://127.0.0.1:${chaos}/ws/ping-flood?count=10000`, undefined);
  t.ok(flood.open && flood.messages >= 1 && !flood.error, `10,000 pings: answered, the message delivered (saw ${JSON.stringify(flood)})`);
});
