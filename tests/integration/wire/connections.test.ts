// The chaos host's own HTTP/1.1 stack on real sockets, connection by
// connection: the header-read and idle timeouts, the per-connection cap,
// cancellation when a client leaves, and backpressure.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineChaosEndpoint, sendComplete } from '../../../services/chaos/endpoint.js';
import { Registry } from '../../../shared/registry/registry.js';
import { chaosHeaderNames, eventually, FAST, HONEST, startWith } from '../../helpers/chaos-wire.js';
import { completeResponses, RawConn } from '../../helpers/conn.js';
import { get, parseHead, rawExchange, splitResponses } from '../../helpers/raw.js';
import { startChaos } from '../../helpers/servers.js';

t.test('header-read timeout (slowloris): 408 and close', async (t) => {
  const { port } = await startChaos(t, { ...FAST, requestTimeoutMs: 200 });
  await t.test('half a head, then silence', async (t) => {
    const res = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: chaos.test\r\n', { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    const r = parseHead(res.data);
    t.equal(r.status, 408);
    t.equal(r.header('connection'), 'close');
    t.same(chaosHeaderNames(r), []);
    t.ok(res.elapsedMs >= 150 && res.elapsedMs < 2500, `after ${res.elapsedMs.toFixed(0)} ms`);
  });
  await t.test('trickling a byte at a time does not extend the deadline', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    const started = performance.now();
    const head = 'GET / HTTP/1.1\r\nHost: chaos.test\r\nX-Slow: ' + 'a'.repeat(100);
    for (let i = 0; i < head.length && !conn.ended; i++) {
      conn.write(head[i] as string);
      await sleep(20);
    }
    t.equal(await conn.waitEnd(), 'fin');
    t.equal(parseHead(conn.received).status, 408);
    t.ok(performance.now() - started < 2000, 'cut off long before the head could finish');
  });
  await t.test('a body that never completes', async (t) => {
    const res = await rawExchange(port, `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc`, { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    t.equal(parseHead(res.data).status, 408);
  });
  await t.test('each pipelined request gets its own full time', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    // Every request completes within the timeout, but the sequence takes longer than one timeout.
    for (let i = 0; i < 4; i++) {
      conn.write(`GET ${HONEST} HTTP/1.1\r\n`);
      await sleep(100);
      conn.write('Host: a\r\n\r\n');
      t.ok(await conn.waitFor((d) => completeResponses(d) === i + 1), `request ${i + 1} served`);
    }
    t.equal(conn.ended, undefined);
  });
});

t.test('idle keep-alive timeout closes the connection with a FIN', async (t) => {
  const { port } = await startChaos(t, { ...FAST, idleTimeoutMs: 150 });
  await t.test('after a response', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get(HONEST));
    t.ok(await conn.waitFor((d) => completeResponses(d) === 1));
    const length = conn.received.length;
    t.equal(await conn.waitEnd(), 'fin');
    t.equal(conn.received.length, length, 'nothing more was sent');
  });
  await t.test('a response longer than the idle wait: the wait starts again after it, and a next request is served', async (t) => {
    // The idle timer is one per connection, disarmed by input and re-armed
    // after each response; here it fires while disarmed (during the /slow).
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get('/slow?ms=400'));
    t.ok(await conn.waitFor((d) => completeResponses(d) === 1, 3000), 'the slow response');
    await sleep(60);
    t.equal(conn.ended, undefined, 'still open just after it');
    conn.write(get(HONEST));
    t.ok(await conn.waitFor((d) => completeResponses(d) === 2, 3000), 'a next request on it is served');
    const at = performance.now();
    t.equal(await conn.waitEnd(3000), 'fin', 'then closed when idle');
    const waited = performance.now() - at;
    t.ok(waited >= 100 && waited < 2000, `after about the idle wait (150 ms): ${Math.round(waited)} ms`);
  });
  await t.test('a connection that never sends anything', async (t) => {
    const res = await rawExchange(port, '', { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    t.equal(res.data.length, 0);
  });
  await t.test('a connection that only sends an empty line', async (t) => {
    const res = await rawExchange(port, '\r\n', { timeoutMs: 3000 });
    t.equal(res.end, 'fin', 'not left open for ever');
    t.equal(res.data.length, 0);
  });
});

t.test('requests-per-connection cap: the 3rd response says close, then FIN', async (t) => {
  const { port } = await startChaos(t, { ...FAST, maxRequestsPerConnection: 3 });
  await t.test('pipelined', async (t) => {
    const res = await rawExchange(port, [HONEST, '/', '/slow?ms=0', HONEST].map((p) => get(p)).join(''));
    t.equal(res.end, 'fin');
    const responses = splitResponses(res.data);
    t.same(responses.map((r) => r.response.status), [200, 200, 200], 'the 4th is never answered');
    t.same(responses.map((r) => r.response.header('connection')), [undefined, undefined, 'close']);
  });
  await t.test('one at a time', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    for (let i = 1; i <= 3; i++) {
      conn.write(get(HONEST));
      t.ok(await conn.waitFor((d) => completeResponses(d) === i));
    }
    t.equal(await conn.waitEnd(), 'fin');
    t.equal(splitResponses(conn.received)[2]?.response.header('connection'), 'close');
  });
});

t.test('a client that leaves mid-response: timers cancelled, connection gone', async (t) => {
  await t.test('a test endpoint proves the wire timer never fires', async (t) => {
    let fired = 0;
    const waits = defineChaosEndpoint({
      id: 'waits',
      path: '/waits',
      category: 'latency',
      summary: 'waits, then answers',
      params: {},
      handle(ctx) {
        ctx.wire.setTimer(150, () => {
          fired++;
          sendComplete(ctx, 200, 'text/plain', Buffer.from('late'));
        });
      },
    });
    const { port, server } = await startWith(t, new Registry('chaos', [waits]));
    const conn = await RawConn.open(port);
    conn.write(get('/waits'));
    t.ok(await eventually(() => server.connectionCount === 1));
    await sleep(30);
    conn.destroy();
    t.ok(await eventually(() => server.connectionCount === 0), 'connection count back to 0');
    await sleep(250);
    t.equal(fired, 0, 'the timer died with the socket');
  });

  const { port, server } = await startChaos(t, FAST);
  const cases = [
    { path: '/drip?bytes=1000&interval=50&chunk=10', waitHead: true },
    { path: '/slow?ms=15000', waitHead: false },
  ];
  for (const { path, waitHead } of cases) {
    await t.test(path, async (t) => {
      const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      const conn = await RawConn.open(port);
      conn.write(get(path));
      if (waitHead) t.ok(await conn.waitFor((d) => d.includes('\r\n\r\n*')), 'streaming has started');
      else await sleep(50);
      t.equal(server.connectionCount, 1);
      conn.destroy();
      t.ok(await eventually(() => server.connectionCount === 0), 'connection count back to 0');
      t.ok(
        await eventually(() => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length <= timersBefore),
        'no server timer left behind',
      );
    });
  }
});

t.test('backpressure: a client that pipelines without reading cannot grow server memory', async (t) => {
  let served = 0;
  const big = Buffer.alloc(64 * 1024, 0x61);
  const fat = defineChaosEndpoint({
    id: 'fat',
    path: '/fat',
    category: 'payload',
    summary: '64 KiB',
    params: {},
    handle(ctx) {
      served++;
      sendComplete(ctx, 200, 'application/octet-stream', big);
    },
  });
  const { port, server } = await startWith(t, new Registry('chaos', [fat]), { ...FAST, idleTimeoutMs: 1500 });
  const n = 3000; // 3000 × 64 KiB would be ~190 MB of responses if nothing held back
  const conn = await RawConn.open(port);
  t.teardown(() => conn.destroy());
  conn.socket.pause(); // never read
  conn.write(Array.from({ length: n }, () => get('/fat')).join(''));
  // Wait until the server stops making progress.
  let last = -1;
  for (let i = 0; i < 50 && served !== last; i++) {
    last = served;
    await sleep(100);
  }
  t.ok(served > 0, `served ${served} before the client's window filled`);
  t.ok(served < n / 4, `stopped at ${served} of ${n}: output backpressure holds the rest`);
  await sleep(200);
  t.equal(served, last, 'no more progress while the client does not read');
  // The stalled connection is cut off after the idle timeout instead of lingering for ever.
  t.ok(await eventually(() => server.connectionCount === 0, 5000), 'a client that never reads is eventually dropped');
});

t.test('backpressure: a reading client gets every pipelined response, in order', async (t) => {
  let served = 0;
  const numbered = defineChaosEndpoint({
    id: 'numbered',
    path: '/numbered',
    category: 'payload',
    summary: 'counts',
    params: {},
    handle(ctx) {
      served++;
      // Async answers keep the queue full, so parsing pauses and resumes many times.
      ctx.wire.setTimer(0, () => sendComplete(ctx, 200, 'text/plain', Buffer.from(String(served).padStart(6, '0').repeat(2000))));
    },
  });
  const { port } = await startWith(t, new Registry('chaos', [numbered]));
  const n = 300;
  const res = await rawExchange(port, Array.from({ length: n }, (_, i) => get(`/numbered?i=${i}`)).join(''), {
    until: (d) => completeResponses(d) === n,
    timeoutMs: 15_000,
  });
  t.equal(res.end, 'stopped');
  const bodies = splitResponses(res.data).map((r) => r.body.toString('latin1', 0, 6));
  t.same(bodies, Array.from({ length: n }, (_, i) => String(i + 1).padStart(6, '0')));
});

t.test('backpressure: a client that stops reading mid-stream is dropped, not waited on for ever', async (t) => {
  let writes = 0;
  const chunk = Buffer.alloc(256 * 1024, 0x62);
  const firehose = defineChaosEndpoint({
    id: 'firehose',
    path: '/firehose',
    category: 'latency',
    summary: 'streams until the client stops reading',
    params: {},
    handle(ctx) {
      ctx.wire.head(200, [['Content-Type', 'application/octet-stream']]);
      const step = (): void => {
        writes++;
        if (ctx.wire.write(chunk)) ctx.wire.setTimer(0, step);
        else ctx.wire.whenWritable(step);
      };
      step();
    },
  });
  const { port, server } = await startWith(t, new Registry('chaos', [firehose]), { ...FAST, idleTimeoutMs: 300 });
  const conn = await RawConn.open(port);
  t.teardown(() => conn.destroy());
  conn.socket.pause(); // never read
  conn.write(get('/firehose'));
  t.ok(await eventually(() => server.connectionCount === 0, 5000), 'cut off once it stalled for the idle timeout');
  t.ok(writes < 400, `the server stopped writing (${writes} writes of 256 KiB), it did not buffer without bound`);
});
