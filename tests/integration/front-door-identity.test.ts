// The client address through the real front door: HAProxy carries it to the
// chaos replicas in PROXY v2 and to control and bots in X-Forwarded-For, the
// limiter counts it across replicas on the shared Redis, and the edge caps one
// address's connections before any replica sees them.
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { get, parseHead, rawExchange } from '../helpers/raw.js';
import { startStack } from '../helpers/stack.js';

const closing = (path: string, host: string): string => get(path, { Host: host, Connection: 'close' });

t.test('the client address reaches the limiter; replicas share one budget', async (t) => {
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '3', MAX_CONNECTIONS_PER_IP: '4' });
  const chaosHost = new URL(stack.urls.chaos).host;
  const controlHost = new URL(stack.urls.control).host;
  for (const [host, name, addresses] of [
    [chaosHost, 'chaos (PROXY v2)', ['127.0.0.2', '127.0.0.3']],
    [controlHost, 'control (X-Forwarded-For)', ['127.0.0.12', '127.0.0.13']],
  ] as const) {
    await t.test(name, async (t) => {
      const status = async (from: string, spoof?: string): Promise<number> => {
        const headers: Record<string, string> = { Host: host, Connection: 'close', ...(spoof ? { 'X-Forwarded-For': spoof } : {}) };
        return parseHead((await rawExchange(stack.front, get('/slow?ms=0', headers), { localAddress: from })).data).status;
      };
      const [first, second] = addresses;
      const seen = [await status(first), await status(first, '10.9.8.7'), await status(first, '10.9.8.6'), await status(first, '10.9.8.5')];
      t.same(seen, [200, 200, 200, 429], `${first}: 3 allowed across both replicas, then 429, whatever X-Forwarded-For it sends`);
      t.equal(await status(second), 200, `${second} has its own budget`);
    });
  }
  await t.test('the per-client connection cap is applied at the edge', async (t) => {
    const idle = await Promise.all(
      Array.from({ length: 4 }, () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect({ port: stack.front, host: '127.0.0.1', localAddress: '127.0.0.20' });
          socket.once('connect', () => resolve(socket));
          socket.once('error', reject);
        }),
      ),
    );
    t.teardown(() => idle.forEach((s) => s.destroy()));
    await sleep(200);
    const refused = await rawExchange(stack.front, closing('/slow?ms=0', chaosHost), { localAddress: '127.0.0.20', timeoutMs: 3000 });
    t.equal(refused.data.length, 0, 'the fifth connection from one address gets nothing');
    t.not(refused.end, 'timeout', 'it is closed at once');
    const other = await rawExchange(stack.front, closing('/slow?ms=0', chaosHost), { localAddress: '127.0.0.21' });
    t.equal(parseHead(other.data).status, 200, 'another address is served');
  });
});
