// One greedy client cannot lock others out: its connections are capped at
// accept (MAX_CONNECTIONS_PER_IP), its silent sockets are closed after
// FIRST_REQUEST_TIMEOUT_MS, and a well-behaved client from another address
// keeps getting prompt answers throughout. Small caps, so a few dozen
// sockets suffice; 127.0.0.2 is another loopback address on Linux.
import net from 'node:net';
import t, { type Test } from 'tap';
import { completeByLength, get, rawExchange } from '../../helpers/raw.js';
import type { ConnectionCaps } from '../../../shared/pipeline/connection-caps.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const CAP = 10;
const config = testConfig({ MAX_CONNECTIONS_PER_IP: String(CAP), FIRST_REQUEST_TIMEOUT_MS: '600' });
const PATH = { chaos: '/status/200', control: '/status/200', bots: '/humans.txt' } as const;

async function start(t: Test, host: keyof typeof PATH): Promise<{ port: number; caps: ConnectionCaps }> {
  if (host === 'chaos') {
    const { port, server } = await startChaos(t, { config });
    return { port, caps: server.caps };
  }
  const { port, service } = await startHttp(t, host, config);
  return { port, caps: service.caps };
}

/** Opens a socket that never sends; resolves with how it ended and after how long (ms). */
function silentSocket(port: number): { ended: Promise<{ after: number }>; socket: net.Socket } {
  const started = performance.now();
  const socket = net.connect({ port, host: '127.0.0.1' });
  socket.on('error', () => {});
  const ended = new Promise<{ after: number }>((resolve) => socket.once('close', () => resolve({ after: performance.now() - started })));
  return { ended, socket };
}

for (const host of ['chaos', 'control', 'bots'] as const) {
  t.test(`${host}: an idle-socket flood from one address is capped and cleared; others are served throughout`, async (t) => {
    const { port, caps } = await start(t, host);
    const flood = Array.from({ length: CAP * 3 }, () => silentSocket(port));
    t.teardown(() => flood.forEach((f) => f.socket.destroy()));
    // A well-behaved client on another address, during the flood.
    const started = performance.now();
    const other = await rawExchange(port, get(PATH[host], { Connection: 'close' }), { localAddress: '127.0.0.2', until: completeByLength, timeoutMs: 3000 });
    t.match(other.data.toString('latin1'), /^HTTP\/1\.1 200 /, 'another client is answered');
    t.ok(performance.now() - started < 1000, 'promptly');
    const ends = await Promise.all(flood.map((f) => f.ended));
    const refused = ends.filter((e) => e.after < 400).length;
    const timedOut = ends.filter((e) => e.after >= 400).length;
    t.equal(timedOut, CAP, `${CAP} silent sockets admitted, then closed after the first-request timeout`);
    t.equal(refused, CAP * 2, 'the rest closed at accept');
    t.equal(caps.refused, CAP * 2, 'and counted');
    t.ok(ends.every((e) => e.after < 3000), 'none left open');
  });
}

t.test('a client that made a request keeps the longer keep-alive wait', async (t) => {
  const { port } = await startChaos(t, { config, idleTimeoutMs: 1500 });
  const socket = net.connect({ port, host: '127.0.0.1' });
  const started = performance.now();
  let data = '';
  socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
  socket.write(get('/status/200'));
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const after = performance.now() - started;
  t.match(data, /^HTTP\/1\.1 200 /);
  t.ok(after >= 1400, `open until the keep-alive timeout (${Math.round(after)} ms), not the first-request one`);
});

t.test('held responses per client: past MAX_HELD_PER_IP a real 429 naming the cap; slots come back', async (t) => {
  const held = testConfig({ MAX_HELD_PER_IP: '2', HOLD_MS: '700' });
  const { port } = await startChaos(t, { config: held });
  const ask = (path: string) => rawExchange(port, get(path, { Connection: 'close' }), { timeoutMs: 4000 });
  const slow = [ask('/slow?ms=800'), ask('/slow?ms=800')];
  await new Promise((resolve) => setTimeout(resolve, 200));
  const third = await ask('/slow?ms=10');
  const text = third.data.toString('latin1');
  t.match(text, /^HTTP\/1\.1 429 /, 'the third at once is refused');
  t.match(text, /Content-Type: application\/problem\+json/);
  t.match(text, /Retry-After: 1/);
  t.match(text, /MAX_HELD_PER_IP/);
  t.match(text, /"policy":"held"/);
  t.notMatch(text, /X-Chaos-/i, 'a real limit, no X-Chaos-*');
  const bystander = await rawExchange(port, get('/status/200', { Connection: 'close' }), { until: completeByLength });
  t.match(bystander.data.toString('latin1'), /^HTTP\/1\.1 200 /, 'endpoints that do not hold are not capped');
  // /bytes holds only in its overshoot mode: its other modes answer at once and take no slot.
  for (const mode of ['wrong-content-type', 'content-length-undershoot']) {
    const answered = await rawExchange(port, get(`/bytes?n=10&mode=${mode}`, { Connection: 'close' }), { until: completeByLength });
    t.match(answered.data.toString('latin1'), /^HTTP\/1\.1 200 /, `/bytes ${mode} is not capped`);
  }
  t.match((await ask('/bytes?n=10')).data.toString('latin1'), /^HTTP\/1\.1 429 /, '/bytes in its holding mode is');
  for (const r of await Promise.all(slow)) t.match(r.data.toString('latin1'), /^HTTP\/1\.1 200 /);
  t.match((await ask('/slow?ms=10')).data.toString('latin1'), /^HTTP\/1\.1 200 /, 'the slots came back');

  // An overshoot holds its connection (HOLD_MS) after its handler is done: the slot stays taken until the close.
  const hold = ask('/bytes?n=10');
  const other = ask('/bytes?n=10');
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.match((await ask('/slow?ms=10')).data.toString('latin1'), /^HTTP\/1\.1 429 /, 'two held connections fill the cap');
  await Promise.all([hold, other]);
  t.match((await ask('/slow?ms=10')).data.toString('latin1'), /^HTTP\/1\.1 200 /, 'free again once the holds end');
});
