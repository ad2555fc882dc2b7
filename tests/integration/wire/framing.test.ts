// The chaos host's own HTTP/1.1 stack on real sockets, when a response lies
// or fails: the framing lies of /bytes and /truncate, and handler failures.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineChaosEndpoint, sendComplete, type ChaosContext } from '../../../services/chaos/endpoint.js';
import { Registry } from '../../../shared/registry/registry.js';
import { seededBytes } from '../../../shared/primitives/seed.js';
import { chaosHeaderNames, eventually, FAST, HONEST, startWith } from '../../helpers/chaos-wire.js';
import { RawConn } from '../../helpers/conn.js';
import { completeByLength, get, parseHead, rawExchange, splitResponses, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos } from '../../helpers/servers.js';

t.test('/bytes content-length-undershoot: the extra bytes bleed into the next response', async (t) => {
  const { port } = await startChaos(t, FAST);
  for (const n of [101, 256, 1]) {
    await t.test(`n=${n}, pipelined`, async (t) => {
      const first = get(`/bytes?mode=content-length-undershoot&n=${n}`);
      const res = await rawExchange(port, first + get(HONEST), {
        until: (d) => d.lastIndexOf('HTTP/1.1 ') > 0 && completeByLength(d.subarray(d.lastIndexOf('HTTP/1.1 '))),
      });
      const head = parseHead(res.data);
      const claimed = Math.floor(n / 2);
      t.equal(head.header('content-length'), String(claimed));
      const afterHead = res.data.subarray(head.headLength);
      t.same(afterHead.subarray(0, n), seededBytes('42', n), 'all n bytes were sent, byte-exact');
      t.equal(afterHead.subarray(claimed, n).length, n - claimed, 'n - floor(n/2) extra bytes');
      t.equal(afterHead.toString('latin1', n, n + 9), 'HTTP/1.1 ', 'then the next status line, right after');
      t.equal(parseHead(afterHead.subarray(n)).status, 200);
    });
  }
  await t.test('one request at a time on a kept-alive connection', async (t) => {
    const n = 64;
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get(`/bytes?mode=content-length-undershoot&n=${n}`));
    const headLength = (): number => parseHead(conn.received).headLength;
    t.ok(await conn.waitFor((d) => d.includes('\r\n\r\n') && d.length >= headLength() + n));
    conn.write(get(HONEST));
    t.ok(await conn.waitFor((d) => d.length > headLength() + n && completeByLength(d.subarray(headLength() + n))));
    const body = conn.received.subarray(headLength());
    t.same(body.subarray(0, n), seededBytes('42', n));
    t.equal(body.toString('latin1', n, n + 9), 'HTTP/1.1 ');
  });
});

t.test('/bytes content-length-overshoot: the connection is held with nothing more sent', async (t) => {
  await t.test('held until the client gives up', async (t) => {
    const { port, server } = await startChaos(t, { ...FAST, holdMs: 5000 });
    const n = 64;
    const conn = await RawConn.open(port);
    conn.write(get(`/bytes?mode=content-length-overshoot&n=${n}`) + get(HONEST));
    const head = (): ParsedResponse => parseHead(conn.received);
    t.ok(await conn.waitFor((d) => d.includes('\r\n\r\n') && d.length >= head().headLength + n));
    t.equal(head().header('content-length'), String(2 * n));
    await sleep(300);
    t.equal(conn.received.length, head().headLength + n, 'exactly n body bytes; the pipelined request is not answered');
    t.equal(conn.ended, undefined, 'still open while held');
    conn.destroy();
    t.ok(await eventually(() => server.connectionCount === 0), 'the server lets go when the client closes');
  });
  await t.test('a client FIN ends the hold at once', async (t) => {
    const { port, server } = await startChaos(t, { ...FAST, holdMs: 5000 });
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get('/bytes?mode=content-length-overshoot&n=8'));
    t.ok(await conn.waitFor((d) => d.includes('\r\n\r\n')));
    await sleep(50);
    conn.end();
    t.equal(await conn.waitEnd(), 'fin');
    t.ok(await eventually(() => server.connectionCount === 0));
  });
  await t.test('after holdMs the server closes with a FIN', async (t) => {
    const { port } = await startChaos(t, { ...FAST, holdMs: 150 });
    const res = await rawExchange(port, get('/bytes?mode=content-length-overshoot&n=8'), { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    t.equal(parseHead(res.data).rest.length, 8);
    t.ok(res.elapsedMs >= 100, `held for ${res.elapsedMs.toFixed(0)} ms`);
  });
});

t.test('/truncate: FIN after exactly `at` body bytes, not a reset', async (t) => {
  const { port } = await startChaos(t, FAST);
  for (const at of [1, 100, 70_000]) {
    await t.test(`at=${at}`, async (t) => {
      const res = await rawExchange(port, get(`/truncate?at=${at}`) + get(HONEST));
      t.equal(res.end, 'fin');
      const head = parseHead(res.data);
      t.equal(head.header('content-length'), String(2 * at));
      t.equal(head.rest.length, at, 'exactly at bytes, and nothing for the pipelined request');
      t.equal(head.rest.toString('latin1', 0, Math.min(at, 12)), '012345678901'.slice(0, Math.min(at, 12)));
    });
  }
});

t.test('an endpoint that fails: 500 without X-Chaos-*, and the server keeps serving', async (t) => {
  const def = (id: string, handle: (ctx: ChaosContext) => void | Promise<void>) =>
    defineChaosEndpoint({ id, path: `/${id}`, category: 'fault-injection', summary: id, params: {}, handle });
  const registry = new Registry<ChaosContext>('chaos', [
    def('throws', () => {
      throw new Error('boom');
    }),
    def('rejects', async () => {
      await sleep(5);
      throw new Error('boom later');
    }),
    def('throws-after-head', (ctx) => {
      ctx.wire.head(200, [['Content-Length', '10']]);
      throw new Error('boom mid-response');
    }),
    def('throws-after-timer', (ctx) => {
      ctx.wire.setTimer(1000, () => sendComplete(ctx, 200, 'text/plain', Buffer.from('never')));
      throw new Error('boom with a timer set');
    }),
    def('writes-then-resets', (ctx) => {
      ctx.wire.rawHead('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n');
      ctx.wire.write('part');
      ctx.wire.end('reset');
    }),
    def('fine', (ctx) => sendComplete(ctx, 200, 'text/plain', Buffer.from('fine'))),
  ]);
  const { port } = await startWith(t, registry);
  for (const path of ['/throws', '/rejects', '/throws-after-timer']) {
    await t.test(`${path} → 500`, async (t) => {
      const res = await rawExchange(port, get(path) + get('/fine'), { timeoutMs: 3000 });
      t.equal(res.end, 'fin');
      const responses = splitResponses(res.data);
      t.same(responses.map((r) => r.response.status), [500], 'one 500, then close');
      const r = responses[0]!.response;
      t.equal(r.header('content-type'), 'application/json');
      t.equal(r.header('connection'), 'close');
      t.same(chaosHeaderNames(r), []);
      t.equal((JSON.parse(responses[0]!.body.toString()) as { error: string }).error, 'internal_error');
    });
  }
  await t.test('HEAD of a failing endpoint gets a head only', async (t) => {
    const res = await rawExchange(port, get('/throws', {}, 'HEAD'), { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    t.equal(parseHead(res.data).status, 500);
    t.equal(parseHead(res.data).rest.length, 0);
  });
  await t.test('a failure after the head was sent resets the connection', async (t) => {
    const res = await rawExchange(port, get('/throws-after-head'), { timeoutMs: 3000 });
    t.equal(res.end, 'reset');
  });
  await t.test('bytes written before a reset in the same turn reach the client before the RST (writes batched per turn)', async (t) => {
    const res = await rawExchange(port, get('/writes-then-resets'), { timeoutMs: 3000 });
    t.equal(res.data.toString('latin1'), 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\npart');
    t.equal(res.end, 'reset');
  });
  await t.test('still serving', async (t) => {
    const res = await rawExchange(port, get('/fine'), { until: completeByLength });
    t.equal(parseHead(res.data).status, 200);
    t.equal(parseHead(res.data).rest.toString(), 'fine');
  });
});
