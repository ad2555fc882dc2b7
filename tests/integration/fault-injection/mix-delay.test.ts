// The control twin of /mix waits "the same delay" as /mix, and never less:
// node's timers count whole milliseconds and can fire up to 1 ms early.
// Measured on a real socket from the request's write to the first response
// byte, which can only be later than the server's own wait.
import net from 'node:net';
import t from 'tap';
import { get } from '../../helpers/raw.js';
import { spin } from '../../helpers/clock.js';
import { startHttp } from '../../helpers/servers.js';

/** Milliseconds from writing `request` to the first byte of the answer, on a keep-alive connection. */
function timeToFirstByte(socket: net.Socket, request: string): Promise<number> {
  return new Promise((resolve) => {
    socket.once('data', () => resolve(performance.now() - sentAt));
    const sentAt = performance.now();
    socket.write(request);
  });
}

t.test('control /mix: the delay is never cut short', async (t) => {
  const { port } = await startHttp(t, 'control');
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  t.teardown(() => socket.destroy());
  const DELAY_MS = 2;
  const ROUNDS = 300;
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    spin((i % 10) / 10);
    times.push(await timeToFirstByte(socket, get(`/mix?delay=${DELAY_MS}&body=text:x`)));
    // The whole answer is one small write: the next request starts clean.
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(times.length, ROUNDS);
  t.same(times.filter((ms) => ms < DELAY_MS), [], `no answer came before ${DELAY_MS} ms`);
});
