// A WebSocket's exchange is observed (metrics: chaos_responses_total's code)
// with the 101 that opened it, on the control twins as on chaos, when it
// ends; the twins' 101 is written by ws past node:http, so the service is
// told of it (shared/http/upgrades.ts markSwitched).
import t from 'tap';
import WebSocketClient from 'ws';
import { observe, type Observation } from '../../../shared/pipeline/observe.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const { port: chaos } = await startChaos(t);
const { port: control } = await startHttp(t, 'control');

/** Opens `url`, sends one message, closes 1000 after the echo; resolves with the observations made until then. */
async function echoOnce(url: string, endpoint: string): Promise<Observation | undefined> {
  const seen: Observation[] = [];
  const stop = observe((o) => seen.push(o));
  try {
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocketClient(url);
      ws.on('open', () => ws.send('hello'));
      ws.on('message', () => ws.close(1000));
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    // The server publishes when its side of the socket has closed.
    const deadline = Date.now() + 5_000;
    while (!seen.some((o) => o.endpoint === endpoint) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return seen.find((o) => o.endpoint === endpoint);
  } finally {
    stop();
  }
}

t.test('a control twin\'s WebSocket is observed with status 101', async (t) => {
  const echo = await echoOnce(`ws://127.0.0.1:${control}/ws/echo`, 'ws-echo');
  t.equal(echo?.host, 'control');
  t.equal(echo?.status, 101, 'the 101 ws wrote, not 0');
  t.ok((echo?.bytes ?? 0) > 0, `bytes counted (${String(echo?.bytes)})`);
  const frames = await echoOnce(`ws://127.0.0.1:${control}/ws/close?mode=clean`, 'ws-close');
  t.equal(frames?.status, 101, '/ws/close twin: 101');
});

t.test('the same on chaos: 101', async (t) => {
  const echo = await echoOnce(`ws://127.0.0.1:${chaos}/ws/close?mode=clean`, 'ws-close');
  t.equal(echo?.host, 'chaos');
  t.equal(echo?.status, 101);
});

t.test('a plain GET to a twin is still its real 426', async (t) => {
  const seen: Observation[] = [];
  const stop = observe((o) => seen.push(o));
  const res = await fetch(`http://127.0.0.1:${control}/ws/echo`);
  await res.arrayBuffer();
  await new Promise((r) => setTimeout(r, 200));
  stop();
  t.equal(res.status, 426);
  t.equal(seen.find((o) => o.endpoint === 'ws-echo')?.status, 426);
});
