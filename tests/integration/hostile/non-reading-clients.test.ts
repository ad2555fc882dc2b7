// Clients that do not read cannot pin server memory: 1,000 of them ask for the
// largest /truncate body (1 MB of a shared pattern) and never read a byte. The
// chaos process (a real one, so its RSS is its own) must stay within a small
// budget: bodies that are views of shared buffers are handed to the socket without
// a per-response copy. Before that, each such client pinned its own copy
// (measured here: a peak of about 36 MiB for 1,000 clients on loopback, where
// the kernel buffers absorb most of each body; with small receive windows,
// far more), against 2–3 MiB without it. Since, 1,000 connections' own state
// (socket, parser, timers: about 12 KiB each) brings the growth to 12–17.5 MiB
// on a busy machine (2026-11-27, the same on the build before that day's
// merges), so the budget sits between that and a copy per response.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import t from 'tap';
import { freePort, spawnNode, waitForPort } from '../../helpers/process.js';

const CLIENTS = 1000;
const BUDGET_MIB = 24;

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:')) ?? '';
  return Number(/(\d+)/.exec(line)?.[1] ?? 0) / 1024;
}

/** The head /truncate?at=1000000 answers: 200, Content-Length 2×at, the cut named. */
const TRUNCATE_HEAD = /^HTTP\/1\.1 200 OK\r\n[^]*\r\nContent-Length: 2000000\r\n[^]*\r\nX-Chaos-Truncated-At: 1000000\r\n[^]*?\r\n\r\n$/;

/** The response head a socket receives (it is resumed to read it), then the socket is destroyed. */
function headOf(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const done = (): void => {
      socket.destroy();
      const end = data.indexOf('\r\n\r\n');
      resolve(end === -1 ? data : data.slice(0, end + 4));
    };
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      if (data.includes('\r\n\r\n')) done();
    });
    socket.on('close', done);
    socket.resume();
  });
}

function truncateHead(port: number): Promise<string> {
  const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.write('GET /truncate?at=1000000 HTTP/1.1\r\nHost: a\r\n\r\n'));
  socket.on('error', () => {});
  return headOf(socket);
}

t.test(`${CLIENTS} clients that never read the largest /truncate body`, async (t) => {
  const port = await freePort();
  const chaos = spawnNode('services/chaos/main.js', {
    CHAOS_PORT: String(port),
    RATE_LIMIT_GENERAL: '0',
    MAX_CONNECTIONS_PER_IP: String(CLIENTS * 2),
  });
  t.teardown(() => chaos.child.kill('SIGKILL'));
  await waitForPort(port);
  const pid = chaos.child.pid as number;
  await new Promise((resolve) => setTimeout(resolve, 300));
  // First, what every one of them asks for is really served: the 2 MB promise of /truncate, not a refusal.
  t.match(await truncateHead(port), TRUNCATE_HEAD, 'one client that reads gets the /truncate head');
  const idle = rssMiB(pid);
  const sockets: net.Socket[] = [];
  t.teardown(() => sockets.forEach((s) => s.destroy()));
  await Promise.all(
    Array.from({ length: CLIENTS }, () => new Promise<void>((resolve) => {
      // Never read: what the kernel does not take stays queued in the server.
      const socket = net.connect({ port, host: '127.0.0.1' }, () => {
        socket.write('GET /truncate?at=1000000 HTTP/1.1\r\nHost: a\r\n\r\n');
        resolve();
      });
      socket.pause();
      socket.on('error', () => {});
      sockets.push(socket);
    })),
  );
  // The peak over 1.5 s: a copy lives from the write until the kernel takes it.
  let loaded = idle;
  for (let i = 0; i < 30; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    loaded = Math.max(loaded, rssMiB(pid));
  }
  const grown = loaded - idle;
  // Meanwhile a client that reads is answered at once.
  const started = performance.now();
  const answer = await new Promise<string>((resolve) => {
    let data = '';
    const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.write('GET /status/200 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'));
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('close', () => resolve(data));
    socket.on('error', () => resolve(data));
  });
  t.match(answer, /^HTTP\/1\.1 200 /, 'a reading client is served meanwhile');
  const waited = performance.now() - started;
  t.ok(waited < 5000, `promptly (${Math.round(waited)} ms, while the server still hands 1,000 bodies to the kernel)`);
  // And the clients that never read were answered /truncate too: their first bytes, read now, are its head.
  for (const socket of sockets.slice(0, 3)) t.match(await headOf(socket), TRUNCATE_HEAD, 'a client that did not read was answered /truncate');
  t.ok(grown < BUDGET_MIB, `RSS ${idle.toFixed(1)} → ${loaded.toFixed(1)} MiB: grew ${grown.toFixed(1)} MiB for ${CLIENTS} clients (budget ${BUDGET_MIB})`);
});
