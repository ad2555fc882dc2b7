// The bounds of a chaos WebSocket (issue 27): it is a held connection
// (MAX_HELD_PER_IP slots, given back when the socket closes), it lives at most
// MAX_RESPONSE_MS, idles at most the connection's idle time (30 s by
// default; 2 s here), and its echo is rate-limited in bytes per second.
import t from 'tap';
import { ECHO_BYTES_PER_SECOND } from '../../../services/chaos/websocket/session.js';
import { MAX_MESSAGE_BYTES } from '../../../services/chaos/websocket/reader.js';
import { startChaos, testConfig } from '../../helpers/servers.js';
import { clientFrame, closeBody, headerOf, RawWs } from '../../helpers/ws-raw.js';

const CLOSE = 0x8;
const BINARY = 0x2;
const PING = 0x9;

async function open(port: number, path: string): Promise<{ ws: RawWs; head: string }> {
  const ws = await RawWs.connect(port, path);
  t.teardown(() => ws.destroy());
  return { ws, head: await ws.waitHead() };
}

t.test('idle: no frame for the idle time gets close 1001, then our FIN once the client answers', async (t) => {
  const { port } = await startChaos(t, { idleTimeoutMs: 2000 });
  const { ws } = await open(port, '/ws/frames?mode=masked&after=9');
  const [close] = await ws.waitFrames(1, 15_000);
  const after = performance.now() - ws.openedAt;
  t.ok(close?.opcode === CLOSE && closeBody(close).code === 1001, 'close 1001');
  // Generous both ways on a busy machine: not before the idle time, well before a hang.
  t.ok(after >= 1900 && after < 12_000, `after ${Math.round(after)} ms (idle time 2 s)`);
  ws.send(clientFrame(CLOSE, Buffer.from([0x03, 0xe9])));
  t.equal(await ws.waitEnd(), 'fin');
});

t.test('input keeps it alive; MAX_RESPONSE_MS ends it anyway with close 1001', async (t) => {
  const { port } = await startChaos(t, { idleTimeoutMs: 1500, config: testConfig({ MAX_RESPONSE_MS: '4000' }) });
  const { ws } = await open(port, '/ws/frames?mode=masked&after=99');
  const pinging = setInterval(() => ws.send(clientFrame(PING, 'alive')), 300);
  t.teardown(() => clearInterval(pinging));
  const ended = await ws.waitEnd(20_000);
  clearInterval(pinging);
  const after = ws.endedAt - ws.openedAt;
  const close = ws.frames.find((f) => f.opcode === CLOSE);
  t.ok(close && closeBody(close).code === 1001 && /MAX_RESPONSE_MS/.test(closeBody(close).reason.toString()), 'close 1001 naming the cap');
  t.not(ended, 'timeout', `the connection ended (${ended})`);
  t.ok(after >= 3900, `not before the cap: ${Math.round(after)} ms, past the 1.5 s idle time thanks to the pings`);
});

t.test('a WebSocket holds one of its client\'s MAX_HELD_PER_IP slots until it closes', async (t) => {
  const { port } = await startChaos(t, { config: testConfig({ MAX_HELD_PER_IP: '2' }) });
  const first = await open(port, '/ws/pong-lie');
  await open(port, '/ws/pong-lie');
  const third = await open(port, '/ws/pong-lie');
  t.match(third.head, /^HTTP\/1\.1 429 /, 'the third is a 429');
  t.notMatch(third.head, /X-Chaos-/i, 'a real limit, no X-Chaos-* line');
  first.ws.send(clientFrame(CLOSE, Buffer.from([0x03, 0xe8])));
  t.equal(await first.ws.waitEnd(), 'fin', 'the first closes');
  // As a client does after the server's FIN: its own.
  first.ws.socket.end();
  let again = '';
  const deadline = performance.now() + 5000;
  while (performance.now() < deadline) {
    const { ws, head } = await open(port, '/ws/pong-lie');
    again = head;
    ws.destroy();
    if (/^HTTP\/1\.1 101 /.test(head)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.match(again, /^HTTP\/1\.1 101 /, 'its slot is free again');
  t.equal(headerOf(again, 'X-Chaos-Endpoint'), '/ws/pong-lie');
});

t.test('the echo is rate-limited in bytes per second past a burst of one message', async (t) => {
  const { port } = await startChaos(t);
  const { ws } = await open(port, '/ws/frames?mode=masked&after=99');
  const piece = 64 * 1024;
  const over = 2 * piece * 4;
  const total = MAX_MESSAGE_BYTES + over;
  const started = performance.now();
  for (let sent = 0; sent < total; sent += piece) ws.send(clientFrame(BINARY, Buffer.alloc(piece, 1)));
  const frames = await ws.waitFrames(total / piece, 30_000);
  const took = performance.now() - started;
  t.equal(frames.length, total / piece, 'every message echoed');
  const floor = (over / ECHO_BYTES_PER_SECOND) * 1000;
  // A lower bound only: a busy machine is slower, never faster.
  t.ok(took >= floor * 0.8, `${total} bytes echoed in ${Math.round(took)} ms; the rate allows no less than ${Math.round(floor)} ms`);
});

t.test('WS_ECHO_BYTES_PER_SECOND sets the echo\'s rate', async (t) => {
  const rate = ECHO_BYTES_PER_SECOND / 2;
  const { port } = await startChaos(t, { config: testConfig({ WS_ECHO_BYTES_PER_SECOND: String(rate) }) });
  const { ws } = await open(port, '/ws/frames?mode=masked&after=99');
  const piece = 64 * 1024;
  const over = 8 * piece;
  const started = performance.now();
  for (let sent = 0; sent < MAX_MESSAGE_BYTES + over; sent += piece) ws.send(clientFrame(BINARY, Buffer.alloc(piece, 1)));
  await ws.waitFrames((MAX_MESSAGE_BYTES + over) / piece, 30_000);
  const took = performance.now() - started;
  // Half the default rate: twice the default's time for the bytes past the burst (the last message goes out unpaused).
  const floor = ((over - piece) / rate) * 1000;
  t.ok(took >= floor * 0.8, `${Math.round(took)} ms at ${rate} B/s (no less than ${Math.round(floor)} ms; the default rate: half that)`);
});
