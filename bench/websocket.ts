// WebSocket benchmark (issue 27): echo round trips per second and messages per
// second on one connection, and the memory of N idle WebSockets, for the chaos
// host's own codec (/ws/pong-lie, an echo after three pongs), the control twin
// on ws (/ws/echo) and a minimal ws echo server, in one run. Each server is a
// child process on core 0; this client on core 1 when taskset is there. All
// three stay up for the whole run and take turns in BENCH_ROUNDS (3)
// interleaved rounds (A B C, A B C …), a fresh connection each, so a minute of
// slowed core falls on each alike; each figure is the median of the rounds,
// with the server's CPU per round trip (the figure a slow client cannot skew).
// `node dist/bench/websocket.js` after `make build`; WS_BENCH_IDLE (10000) sockets.
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import WebSocket from 'ws';
import { cpuSeconds, envInt, forkServer, median, rssBytes, sleep, type Child } from './lib.js';

const IDLE = Number(process.env.WS_BENCH_IDLE ?? 10_000);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
/** Issue 31: echo round trips ≥ 0.9× a minimal ws server. */
const ROUND_TRIP_TARGET = 0.9;
const SECONDS = 3;
const MESSAGES = 20_000;
const TARGETS = [
  ['chaos (own codec)', 'chaos', '/ws/pong-lie'],
  ['control twin (ws)', 'twin', '/ws/echo'],
  ['minimal ws server', 'ws', '/'],
] as const;

const hasTaskset = ((): boolean => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (hasTaskset) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });

function connect(port: number, path: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Sequential echo round trips on one connection for SECONDS. */
async function roundTrips(ws: WebSocket): Promise<number> {
  const payload = Buffer.alloc(32, 0x61).toString();
  const until = performance.now() + SECONDS * 1000;
  let count = 0;
  await new Promise<void>((resolve) => {
    ws.on('message', () => {
      count++;
      if (performance.now() < until) ws.send(payload);
      else resolve();
    });
    ws.send(payload);
  });
  ws.removeAllListeners('message');
  return count / SECONDS;
}

/** MESSAGES sent at once on one connection; messages per second until the last echo. */
async function throughput(ws: WebSocket): Promise<number> {
  const payload = Buffer.alloc(32, 0x62).toString();
  const started = performance.now();
  let count = 0;
  await new Promise<void>((resolve) => {
    ws.on('message', () => {
      if (++count === MESSAGES) resolve();
    });
    for (let i = 0; i < MESSAGES; i++) ws.send(payload);
  });
  ws.removeAllListeners('message');
  return MESSAGES / ((performance.now() - started) / 1000);
}

/** Opens `n` WebSockets with a bare handshake each (no client library per socket); resolves once all are upgraded. */
async function idleSockets(port: number, path: string, n: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;
  for (let batch = 0; batch < n; batch += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, n - batch) }, () =>
        new Promise<void>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
          socket.once('data', (chunk: Buffer) => (chunk.toString('latin1', 0, 12) === 'HTTP/1.1 101' ? resolve() : reject(new Error(chunk.toString('latin1', 0, 40)))));
          socket.on('error', reject);
          sockets.push(socket);
        }),
      ),
    );
  }
  return sockets;
}

interface Figures {
  readonly roundTrips: number[];
  readonly cpuMicrosPerRoundTrip: number[];
  readonly messages: number[];
}

/** Each round's figure, rounded, in order. */
const rounds = (list: readonly number[]): string => list.map((n) => Math.round(n)).join(' / ');

const children: Child[] = [];
const figures: Figures[] = TARGETS.map(() => ({ roundTrips: [], cpuMicrosPerRoundTrip: [], messages: [] }));
try {
  for (const [, target] of TARGETS) children.push(await forkServer('bench/websocket-server.js', { WS_BENCH_TARGET: target }, hasTaskset ? { core: 0 } : {}));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [name, , path]] of TARGETS.entries()) {
      const child = children[i] as Child;
      const figure = figures[i] as Figures;
      const ws = await connect(child.port, path);
      await sleep(200);
      const cpuBefore = cpuSeconds(child.pid);
      const rtt = await roundTrips(ws);
      figure.roundTrips.push(rtt);
      figure.cpuMicrosPerRoundTrip.push(((cpuSeconds(child.pid) - cpuBefore) * 1e6) / (rtt * SECONDS));
      figure.messages.push(await throughput(ws));
      ws.close();
      process.stderr.write(`bench websocket: round ${round + 1}/${ROUNDS} ${name}: ${Math.round(rtt)} round trips/s, ${Math.round(figure.messages.at(-1) as number)} messages/s\n`);
      await sleep(300);
    }
  }
  const rows: string[] = [];
  for (const [i, [name, , path]] of TARGETS.entries()) {
    const child = children[i] as Child;
    const figure = figures[i] as Figures;
    const before = rssBytes(child.pid);
    const sockets = await idleSockets(child.port, path, IDLE);
    await sleep(1000);
    const after = rssBytes(child.pid);
    for (const socket of sockets) socket.destroy();
    rows.push(
      `| ${name} | ${Math.round(median(figure.roundTrips))} (${rounds(figure.roundTrips)}) | ${median(figure.cpuMicrosPerRoundTrip).toFixed(1)} | ` +
        `${Math.round(median(figure.messages))} (${rounds(figure.messages)}) | ${Math.round((after - before) / 1024 / 1024)} MiB (${((after - before) / IDLE / 1024).toFixed(1)} KiB each) |`,
    );
    await sleep(500);
  }
  console.log(`| server | echo round trips/s, one connection, 32 B: median (rounds) | server CPU µs per round trip (median) | messages/s, ${MESSAGES} sent at once: median (rounds) | RSS for ${IDLE} idle WebSockets |`);
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  const [chaos, , minimal] = figures as [Figures, Figures, Figures];
  const ratio = median(chaos.roundTrips) / median(minimal.roundTrips);
  const cpuRatio = median(minimal.cpuMicrosPerRoundTrip) / median(chaos.cpuMicrosPerRoundTrip);
  console.log(
    `\nchaos ÷ minimal ws, echo round trips: ${ratio.toFixed(2)}× (target ≥ ${ROUND_TRIP_TARGET}×): ${ratio >= ROUND_TRIP_TARGET ? 'met' : 'NOT MET'} ` +
      `(server CPU per round trip, minimal ÷ chaos: ${cpuRatio.toFixed(2)}×); messages at once: ${(median(chaos.messages) / median(minimal.messages)).toFixed(2)}×`,
  );
} finally {
  await Promise.all(children.map((child) => child.stop()));
}
