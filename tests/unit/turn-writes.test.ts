// Writes batched per event-loop turn (services/chaos/turn-writes.ts): held
// back until the turn's callbacks have run, then sent together, in order;
// flushTurn sends them at once. Real sockets on loopback.
import net from 'node:net';
import { once } from 'node:events';
import t, { type Test } from 'tap';
import { corkForTurn, flushTurn, unbatched } from '../../services/chaos/turn-writes.js';

async function socketPair(t: Test): Promise<{ client: net.Socket; server: net.Socket }> {
  const listener = net.createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const { port } = listener.address() as net.AddressInfo;
  const accepted = once(listener, 'connection') as Promise<[net.Socket]>;
  const client = net.connect(port, '127.0.0.1');
  await once(client, 'connect');
  const [server] = await accepted;
  t.teardown(() => {
    client.destroy();
    server.destroy();
    listener.close();
  });
  return { client, server };
}

/** Everything the peer has received by the time `ms` have passed. */
async function received(socket: net.Socket, ms: number): Promise<string> {
  let text = '';
  const onData = (chunk: Buffer): void => void (text += chunk.toString('latin1'));
  socket.on('data', onData);
  await new Promise((resolve) => setTimeout(resolve, ms));
  socket.off('data', onData);
  return text;
}

/** A write as the chaos wire makes it: corked for the turn first. */
function turnWrite(socket: net.Socket, text: string): void {
  corkForTurn(socket);
  socket.write(text);
}

t.test('writes of one turn are held until the turn ends, then sent in order', async (t) => {
  const a = await socketPair(t);
  const b = await socketPair(t);
  turnWrite(a.server, 'one ');
  turnWrite(a.server, 'two'); // a second write of the turn: already held
  turnWrite(b.server, 'other');
  t.equal(a.server.writableLength, 7, 'held in the socket, not yet handed to the kernel');
  t.equal(b.server.writableLength, 5);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(a.server.writableLength, 0, 'sent once the turn is over');
  t.equal(b.server.writableLength, 0);
  t.equal(a.server.writableCorked, 0);
  t.equal(await received(a.client, 50), 'one two');
  t.equal(await received(b.client, 0), 'other');
});

t.test('flushTurn sends at once what the turn holds; end() does too', async (t) => {
  const a = await socketPair(t);
  turnWrite(a.server, 'now');
  flushTurn(a.server);
  t.equal(a.server.writableLength, 0, 'handed to the kernel before the turn ends');
  flushTurn(a.server); // nothing held: a no-op
  t.equal(a.server.writableCorked, 0);
  const b = await socketPair(t);
  turnWrite(b.server, 'last');
  b.server.end();
  t.equal(b.server.writableLength, 0, 'end() uncorks fully');
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(b.server.writableCorked, 0, 'the end of the turn does not uncork an ended socket again');
  t.equal(await received(a.client, 50), 'now');
  t.equal(await received(b.client, 0), 'last');
});

t.test('a socket destroyed after flushTurn has delivered its bytes', async (t) => {
  const a = await socketPair(t);
  // The reset reaches the reading peer as an ECONNRESET 'error' (Node 24 reports it where Node 20 did not): expected here.
  a.client.on('error', () => {});
  turnWrite(a.server, 'before the reset');
  flushTurn(a.server);
  a.server.resetAndDestroy();
  t.equal(await received(a.client, 50), 'before the reset');
});

t.test('writes made inside unbatched (a timer of the response) go straight out', async (t) => {
  const a = await socketPair(t);
  unbatched(() => turnWrite(a.server, 'on time'));
  t.equal(a.server.writableCorked, 0, 'not corked');
  t.equal(a.server.writableLength, 0, 'handed to the kernel at once');
  turnWrite(a.server, ' then held');
  t.equal(a.server.writableLength, 10, 'outside it, writes are held for the turn again');
  t.equal(await received(a.client, 50), 'on time then held');
});

t.test('a write inside unbatched after the turn held others on the socket sends them first, then itself, at once', async (t) => {
  const a = await socketPair(t);
  turnWrite(a.server, 'held ');
  t.equal(a.server.writableLength, 5, 'held for the turn');
  unbatched(() => turnWrite(a.server, 'then on time'));
  t.equal(a.server.writableCorked, 0, 'not corked any more');
  t.equal(a.server.writableLength, 0, 'both handed to the kernel at once');
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(a.server.writableCorked, 0, 'the end of the turn finds nothing to uncork');
  t.equal(unbatched(() => 42), 42, 'unbatched returns what its function returns');
  t.equal(await received(a.client, 50), 'held then on time', 'in order');
});
