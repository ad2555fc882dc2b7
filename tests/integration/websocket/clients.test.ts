// Client cells (issue 27): real WebSocket clients against every lie of the
// chaos host, each checking the documented reaction (docs/websocket.md, "What
// clients do"), and against the control twin at the same path and query,
// where the same client must see no failure. Clients: Node's global
// WebSocket (undici, no flag on Node 24), the `ws` package, and Debian's
// python3-websockets in a subprocess (Debian's own /usr/bin/python3;
// `make tools` installs it), driven by scripts/scorecard/ws-clients.ts, as the
// client scorecard drives them.
import t, { type Test } from 'tap';
import { inPool } from '../../../scripts/scorecard/pool.js';
import { nodeWebSocket, pythonWebsockets, pythonWebsocketsAtOnce, wsPackage, type PyWsReport, type WsSeen as Seen } from '../../../scripts/scorecard/ws-clients.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const { port: chaos } = await startChaos(t);
const { port: control } = await startHttp(t, 'control');

const nodeClient = (port: number, path: string, protocol?: string): Promise<Seen> => nodeWebSocket(`ws://127.0.0.1:${port}${path}`, protocol);
const wsClient = (port: number, path: string, protocol?: string): Promise<Seen> => wsPackage(`ws://127.0.0.1:${port}${path}`, protocol);
type PyReport = PyWsReport;
const pyClient = (port: number, path: string, protocol?: string): Promise<PyReport> => pythonWebsockets(`ws://127.0.0.1:${port}${path}`, protocol);

/** A cell: the lie, and what each client does with it on chaos (docs/websocket.md). */
interface Cell {
  readonly path: string;
  readonly protocol?: string;
  /** Node's WebSocket: `fails` = an error event and close 1006; otherwise the close code it reports, or `open` (it opens and stays). */
  readonly node: 'fails' | 'fails-before-open' | 'open' | number;
  /** ws: the error message it raises, or `open`/a close code when it raises none. */
  readonly ws: RegExp | 'open' | number;
  /** python3-websockets: the exception class, and the close code it sends when it fails the connection. */
  readonly py: { readonly error: string | null; readonly sent?: number | null };
}

const FAILED_1002 = { error: 'ConnectionClosedError', sent: 1002 };
const CELLS: readonly Cell[] = [
  { path: '/ws/frames?mode=masked', node: 'fails', ws: /MASK must be clear/, py: FAILED_1002 },
  { path: '/ws/frames?mode=rsv1', node: 'fails', ws: /RSV1 must be clear/, py: FAILED_1002 },
  { path: '/ws/frames?mode=rsv2', node: 'fails', ws: /RSV2 and RSV3 must be clear/, py: FAILED_1002 },
  { path: '/ws/frames?mode=fragmented-ping', node: 'fails', ws: /FIN must be set/, py: FAILED_1002 },
  { path: '/ws/frames?mode=oversized-ping', node: 'fails', ws: /invalid payload length 126/, py: FAILED_1002 },
  { path: '/ws/frames?mode=invalid-utf8', node: 'fails', ws: /invalid UTF-8 sequence/, py: { error: 'ConnectionClosedError', sent: 1007 } },
  { path: '/ws/frames?mode=unknown-opcode', node: 'fails', ws: /invalid opcode 3/, py: FAILED_1002 },
  { path: '/ws/frames?mode=orphan-continuation', node: 'fails', ws: /invalid opcode 0/, py: FAILED_1002 },
  { path: '/ws/frames?mode=interleaved-fragments', node: 'fails', ws: /invalid opcode 1/, py: FAILED_1002 },
  // The split: these three ignore data after a close frame (Chromium fails on it).
  { path: '/ws/frames?mode=data-after-close', node: 1000, ws: 1000, py: { error: 'ConnectionClosedOK', sent: 1000 } },
  { path: '/ws/close?mode=reserved-code', node: 'fails', ws: /invalid status code 1005/, py: FAILED_1002 },
  { path: '/ws/close?mode=invalid-code', node: 'fails', ws: /invalid status code 999/, py: FAILED_1002 },
  { path: '/ws/close?mode=one-byte-body', node: 'fails', ws: /invalid payload length 1/, py: FAILED_1002 },
  { path: '/ws/close?mode=invalid-utf8-reason', node: 'fails', ws: /invalid UTF-8 sequence/, py: { error: 'ConnectionClosedError', sent: 1007 } },
  { path: '/ws/close?mode=no-close-frame', node: 'fails', ws: 1006, py: { error: 'ConnectionClosedError', sent: null } },
  { path: '/ws/close?mode=reset', node: 'fails', ws: 1006, py: { error: 'ConnectionClosedError', sent: null } },
  { path: '/ws/handshake?mode=bad-accept', node: 'fails-before-open', ws: /Invalid Sec-WebSocket-Accept header/, py: { error: 'InvalidHeaderValue' } },
  { path: '/ws/handshake?mode=protocol-not-offered', node: 'fails-before-open', ws: /Server sent a subprotocol but none was requested/, py: { error: 'InvalidHandshake' } },
  // The RFC lets a server leave the offer unanswered: python accepts it, the other two do not.
  { path: '/ws/handshake?mode=protocol-missing', protocol: 'chat', node: 'fails-before-open', ws: /Server sent no subprotocol/, py: { error: null } },
  { path: '/ws/handshake?mode=extension-not-offered', node: 'fails-before-open', ws: /extension that was not requested/, py: { error: 'NegotiationError' } },
  { path: '/ws/handshake?mode=status-200', node: 'fails-before-open', ws: /Unexpected server response: 200/, py: { error: 'InvalidStatusCode' } },
  { path: '/ws/handshake?mode=no-upgrade-header', node: 'fails-before-open', ws: /Unexpected server response: 101/, py: { error: 'InvalidUpgrade' } },
  { path: '/ws/handshake?mode=http-1.0-101', node: 'open', ws: 'open', py: { error: 'InvalidMessage' } },
  { path: '/ws/deflate?mode=bad-window-bits', node: 'open', ws: /Invalid Sec-WebSocket-Extensions header/, py: { error: 'NegotiationError' } },
  { path: '/ws/deflate?mode=bad-inflate', node: 'fails', ws: /invalid block type/, py: FAILED_1002 },
  { path: '/ws/deflate?mode=control-rsv1', node: 'open', ws: /RSV1 must be clear/, py: FAILED_1002 },
];

function checkNode(t: Test, seen: Seen, expected: Cell['node'], label: string): void {
  if (expected === 'fails' || expected === 'fails-before-open') {
    t.ok(seen.error !== undefined && seen.code === 1006, `${label}: error event, close 1006 (saw ${JSON.stringify(seen)})`);
    if (expected === 'fails-before-open') t.notOk(seen.open, `${label}: never open`);
  } else if (expected === 'open') t.ok(seen.open && seen.error === undefined && seen.code === undefined, `${label}: opens and stays (saw ${JSON.stringify(seen)})`);
  else t.ok(seen.error === undefined && seen.code === expected, `${label}: clean close ${expected} (saw ${JSON.stringify(seen)})`);
}

function checkWs(t: Test, seen: Seen, expected: Cell['ws'], label: string): void {
  if (expected instanceof RegExp) t.ok(typeof seen.error === 'string' && expected.test(seen.error) && seen.code === 1006, `${label}: ${String(expected)} (saw ${JSON.stringify(seen)})`);
  else if (expected === 'open') t.ok(seen.open && seen.error === undefined && seen.code === undefined, `${label}: opens and stays (saw ${JSON.stringify(seen)})`);
  else t.ok(seen.error === undefined && seen.code === expected, `${label}: close ${expected}, no error (saw ${JSON.stringify(seen)})`);
}

/** Each cell waits for QUIET_MS of silence: a few at a time (each its own connections), asserted in order. */
const CELLS_AT_ONCE = 6;
const onBothHosts = (client: typeof nodeClient) => (cell: Cell): Promise<[Seen, Seen]> =>
  Promise.all([client(chaos, cell.path, cell.protocol), client(control, cell.path, cell.protocol)]);

function checkTwin(t: Test, twin: Seen, cell: Cell): void {
  t.ok(twin.open && twin.error === undefined && (twin.code === undefined || twin.code === 1000), `control ${cell.path}: no failure (saw ${JSON.stringify(twin)})`);
}

t.test("Node's global WebSocket (undici): the documented failure on chaos, none on the twin", async (t) => {
  const seen = await inPool(CELLS, CELLS_AT_ONCE, onBothHosts(nodeClient));
  CELLS.forEach((cell, i) => {
    const [lie, twin] = seen[i] as [Seen, Seen];
    checkNode(t, lie, cell.node, `chaos ${cell.path}`);
    checkTwin(t, twin, cell);
  });
});

t.test('ws: the documented error on chaos, none on the twin', async (t) => {
  const seen = await inPool(CELLS, CELLS_AT_ONCE, onBothHosts(wsClient));
  CELLS.forEach((cell, i) => {
    const [lie, twin] = seen[i] as [Seen, Seen];
    checkWs(t, lie, cell.ws, `chaos ${cell.path}`);
    checkTwin(t, twin, cell);
  });
});

t.test('python3-websockets: the documented exception and close code on chaos, none on the twin', async (t) => {
  // Every cell at once in one interpreter: each run waits for 2 s of silence.
  const reports = await pythonWebsocketsAtOnce(
    CELLS.flatMap((cell) => [chaos, control].map((port) => ({ url: `ws://127.0.0.1:${port}${cell.path}`, protocol: cell.protocol }))),
  );
  CELLS.forEach((cell, j) => {
    const [lie, twin] = [reports[2 * j] as PyReport, reports[2 * j + 1] as PyReport];
    t.equal(lie.error, cell.py.error, `chaos ${cell.path}: ${cell.py.error ?? 'no exception'}`);
    if (cell.py.sent !== undefined) t.equal(lie.sent, cell.py.sent, `chaos ${cell.path}: sends ${String(cell.py.sent)}`);
    t.ok(twin.open && (twin.error === null || (twin.error === 'ConnectionClosedOK' && twin.rcvd === 1000)), `control ${cell.path}: no failure (saw ${JSON.stringify(twin)})`);
  });
});

t.test('ping-flood: every client answers 10,000 pings and gets the message', async (t) => {
  const path = '/ws/ping-flood?count=10000';
  const node = await nodeClient(chaos, path);
  t.ok(node.open && node.messages >= 1 && node.error === undefined, `Node (saw ${JSON.stringify(node)})`);
  const py = await pyClient(chaos, path);
  t.ok(py.open && py.messages >= 1 && py.error === null, `python3-websockets (saw ${JSON.stringify(py)})`);
  // ws delivers up to ~20 pings' worth and then closes 1006 without an error event past about 100 (measured; the prototypes saw it at 2,000).
  const ws = await wsClient(chaos, '/ws/ping-flood?count=20');
  t.ok(ws.open && ws.messages >= 1 && ws.error === undefined, `ws, 20 pings (saw ${JSON.stringify(ws)})`);
});
