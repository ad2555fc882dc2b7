// A client that resets its connection right after an Upgrade request must
// not crash the control process: node:http drops its error listener from the
// socket it hands over at 'upgrade', so the service keeps one of its own.
// Found by the client scorecard, whose clients reset twins' sockets while a
// 404 (no twin at /ws/pong-lie) or a 101 was on its way.
import net from 'node:net';
import t from 'tap';
import { startHttp } from '../../helpers/servers.js';

const { port } = await startHttp(t, 'control');

const UPGRADE = (path: string): string =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;

/** Sends the request, then an RST once `delayMs` have passed (0: at once). */
function resetAfter(path: string, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.write(UPGRADE(path));
      setTimeout(() => socket.resetAndDestroy(), delayMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

t.test('resets after Upgrade requests to a twin and to a path with none: the service lives on', async (t) => {
  let errors = 0;
  const count = (): void => void errors++;
  process.on('uncaughtException', count);
  t.teardown(() => void process.off('uncaughtException', count));
  for (let round = 0; round < 40; round++) {
    await Promise.all([0, 1, 2, 5].flatMap((delay) => [resetAfter('/ws/pong-lie', delay), resetAfter('/ws/echo', delay), resetAfter('/ws/close?mode=clean', delay)]));
  }
  await new Promise((r) => setTimeout(r, 200));
  t.equal(errors, 0, 'no uncaught error');
  const answer = await fetch(`http://127.0.0.1:${port}/ws/echo`);
  t.equal(answer.status, 426, 'still answering');
});
