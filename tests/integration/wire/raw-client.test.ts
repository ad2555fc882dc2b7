// The raw test client must report how a connection really ended: a reset that
// arrives together with the last bytes, read by a busy client, is still a
// reset (libuv alone reports it as an end; see endKindAtEof).
import net from 'node:net';
import t from 'tap';
import { RawConn } from '../../helpers/conn.js';
import { lenientExchange } from '../../helpers/final-response.js';
import { rawExchange } from '../../helpers/raw.js';

/**
 * A server that answers a request with a few bytes and ends the connection at
 * once, in the same turn: the server runs in this process, so the client can't
 * read the bytes before the end is there too (the case libuv reports as EOF).
 */
async function server(t: { teardown(fn: () => unknown): void }, end: 'fin' | 'reset'): Promise<number> {
  const srv = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
      busyFor(20);
      if (end === 'reset') socket.resetAndDestroy();
      else socket.end();
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => srv.close());
  return (srv.address() as net.AddressInfo).port;
}

/** Keeps the event loop busy, so the bytes and the end wait together in the client's buffer. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

t.test('rawExchange: bytes then a reset, read late, is a reset; bytes then a FIN is a FIN', async (t) => {
  for (const end of ['reset', 'fin'] as const) {
    const port = await server(t, end);
    for (let round = 0; round < 3; round++) {
      const res = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { timeoutMs: 3000 });
      t.equal(res.data.toString('latin1').endsWith('hello'), true, `${end} round ${round}: the bytes arrived`);
      t.equal(res.end, end, `${end} round ${round}: reported as ${end}`);
    }
  }
});

t.test('RawConn: bytes then a reset, read late, is a reset; bytes then a FIN is a FIN', async (t) => {
  for (const end of ['reset', 'fin'] as const) {
    const port = await server(t, end);
    const conn = await RawConn.open(port);
    conn.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    t.equal(await conn.waitEnd(3000), end);
    conn.socket.destroy();
  }
});

t.test('lenientExchange: a server slower to start answering than the wait still gets its head read; the wait then counts from the first byte', async (t) => {
  // Answers after 700 ms, head and 3 of 10 promised body bytes, and keeps the connection open: a lie about framing.
  const srv = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'), 700);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => srv.close());
  const port = (srv.address() as net.AddressInfo).port;
  const ex = await lenientExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', 300);
  t.equal(ex.response.status, 200, 'the head arrived after more than the 300 ms wait and was read');
  t.equal(ex.body.toString('latin1'), 'abc', 'the body bytes that came');
  t.equal(ex.raw.end, 'timeout', 'then the 300 ms ran out, counted from the first byte');
  t.ok(ex.raw.elapsedMs >= 950, `about 700 ms to the first byte and 300 after it (${Math.round(ex.raw.elapsedMs)} ms)`);
  // Without a first-byte bound the same wait counts from the connect and sees nothing.
  const plain = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { timeoutMs: 300 });
  t.equal(plain.data.length, 0, 'rawExchange alone: nothing within 300 ms of the connect');
});
