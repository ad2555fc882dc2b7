// node:http responses ended per event-loop turn (shared/primitives/turn-ends.ts): the
// head is stored at once, the end runs with the turn's others; a response
// destroyed meanwhile is skipped. A real node:http server on loopback.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { respondInTurn } from '../../shared/primitives/turn-ends.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function serve(t: Test, handler: Handler): Promise<number> {
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

async function get(port: number, path: string, method = 'GET'): Promise<{ status: number; body: string; length: string | undefined }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: res.status, body: await res.text(), length: res.headers.get('content-length') ?? undefined };
}

t.test('the head is stored at once, the body is sent once the turn is over', async (t) => {
  const seen: { sentAtOnce: boolean; endedAtOnce: boolean; endedAfterTurn: boolean }[] = [];
  const port = await serve(t, (req, res) => {
    const body = req.method === 'HEAD' ? undefined : 'hello';
    respondInTurn(res, 200, ['Content-Type', 'text/plain', 'Content-Length', '5'], body);
    const record = { sentAtOnce: res.headersSent, endedAtOnce: res.writableEnded, endedAfterTurn: false };
    seen.push(record);
    setImmediate(() => (record.endedAfterTurn = res.writableEnded));
  });
  t.same(await get(port, '/'), { status: 200, body: 'hello', length: '5' });
  t.same(await get(port, '/', 'HEAD'), { status: 200, body: '', length: '5' });
  t.same(seen, [
    { sentAtOnce: true, endedAtOnce: false, endedAfterTurn: true },
    { sentAtOnce: true, endedAtOnce: false, endedAfterTurn: true },
  ]);
});

t.test('responses of one turn all end, in order, each on its own connection', async (t) => {
  const port = await serve(t, (req, res) => {
    const body = `answer to ${req.url}`;
    respondInTurn(res, 200, ['Content-Length', String(body.length)], body);
  });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => get(port, `/${i}`)));
  t.same(answers.map((a) => a.body), Array.from({ length: 20 }, (_, i) => `answer to /${i}`));
});

t.test('a response destroyed before the end of its turn is skipped, and the others still end', async (t) => {
  let destroyedEnded: boolean | undefined;
  const port = await serve(t, (req, res) => {
    respondInTurn(res, 200, ['Content-Length', '2'], 'ok');
    if (req.url === '/cut') {
      // What a failure after the head was stored does (ResponseResponder.failed).
      res.destroy();
      setImmediate(() => (destroyedEnded = res.writableEnded));
    }
  });
  await t.rejects(get(port, '/cut'), 'the client sees the connection cut');
  t.equal(destroyedEnded, false, 'no end was attempted on the destroyed response');
  t.same(await get(port, '/fine'), { status: 200, body: 'ok', length: '2' });
});
