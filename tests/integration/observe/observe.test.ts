// The one observation point: every finished response, on every host, is
// published once with its endpoint, category, mode, status, bytes, duration
// and outcome; a recorder hung on it sees exactly what went on the wire.
import t from 'tap';
import { observe, observing, type Observation } from '../../../shared/pipeline/observe.js';
import { completeByLength, get, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

/** Records observations until stopped. */
function recorder() {
  const seen: Observation[] = [];
  let cursor = 0;
  let wake: (() => void) | undefined;
  const stop = observe((o) => {
    seen.push(o);
    wake?.();
  });
  return {
    seen,
    stop,
    /** The next observation not yet returned, in publication order. */
    async next(): Promise<Observation> {
      const deadline = Date.now() + 5_000;
      while (seen.length <= cursor) {
        if (Date.now() > deadline) throw new Error('no observation within 5 s');
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      return seen[cursor++] as Observation;
    },
  };
}

t.test('nobody listening: nothing is observed', async (t) => {
  t.equal(observing(), false);
  const stop = observe(() => {});
  t.equal(observing(), true);
  stop();
  t.equal(observing(), false);
});

t.test('chaos: served, lied-about, refused and malformed requests are each observed once', async (t) => {
  const rec = recorder();
  t.teardown(rec.stop);
  const { port } = await startChaos(t, { config: testConfig({ RATE_LIMIT_GENERAL: '6' }) });
  const exchange = async (request: string) => {
    const r = await rawExchange(port, request, { until: completeByLength });
    return { r, o: await rec.next() };
  };

  let { r, o } = await exchange(get('/status/418'));
  t.match(o, { host: 'chaos', endpoint: 'status', category: 'status', status: 418, outcome: 'served', completed: true });
  t.equal(o.bytes, r.data.length, 'bytes: head and body, as received');
  t.ok(o.durationMs >= 0 && o.durationMs < 5_000);

  ({ r, o } = await exchange(get('/json?mode=trailing-comma')));
  t.match(o, { endpoint: 'json', category: 'payload', mode: 'trailing-comma', status: 200, outcome: 'served' });
  t.equal(o.bytes, r.data.length);

  // A lie about the length: the client waits for bytes that never come; we close.
  const truncated = await rawExchange(port, get('/truncate?at=10'));
  o = await rec.next();
  t.match(o, { endpoint: 'truncate', status: 200, outcome: 'served', completed: true });
  t.equal(o.bytes, truncated.data.length);

  ({ o } = await exchange(get('/no/such/page')));
  t.match(o, { endpoint: undefined, status: 404, outcome: 'catalog' });
  ({ o } = await exchange(get('/status/200', {}, 'POST')));
  t.match(o, { endpoint: 'status', status: 405, outcome: 'method-not-allowed' });
  ({ o } = await exchange(get('/json?mode=nope')));
  t.match(o, { endpoint: 'json', mode: undefined, status: 400, outcome: 'invalid-params' });
  ({ o } = await exchange(get('/status/200', { Host: 'control.test:8080' })));
  t.match(o, { status: 421, outcome: 'misdirected' });
  ({ o } = await exchange(get('/status/200')));
  t.match(o, { status: 429, outcome: 'rate-limited', policy: 'general', endpoint: 'status' });
  ({ o } = await exchange('GET /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'));
  t.match(o, { endpoint: undefined, status: 400, outcome: 'rejected' });
  t.equal(rec.seen.length, 9, 'one observation per response');
});

t.test('chaos: a client that leaves mid-response is observed as incomplete', async (t) => {
  const rec = recorder();
  t.teardown(rec.stop);
  const { port } = await startChaos(t);
  await rawExchange(port, get('/drip?bytes=10&interval=1000&chunk=1'), { until: (d) => d.includes('\r\n\r\n*') });
  const o = await rec.next();
  t.match(o, { endpoint: 'drip', category: 'latency', status: 200, completed: false });
  t.ok(o.bytes > 0 && o.bytes < 400, `bytes written before the close: ${o.bytes}`);
});

for (const host of ['control', 'bots'] as const) {
  t.test(`${host}: served, catalog and limited responses are observed`, async (t) => {
    const rec = recorder();
    t.teardown(rec.stop);
    const { port } = await startHttp(t, host, testConfig({ RATE_LIMIT_GENERAL: '3' }));
    const path = host === 'control' ? '/json?mode=unquoted-key' : '/robots.txt';
    const first = await rawExchange(port, get(path), { until: completeByLength });
    let o = await rec.next();
    t.match(o, { host, endpoint: host === 'control' ? 'json' : 'robots-txt', outcome: 'served', status: 200, completed: true });
    t.equal(o.bytes, first.data.length, 'bytes as received');
    await rawExchange(port, get('/nothing-here'), { until: completeByLength });
    o = await rec.next();
    t.match(o, { host, endpoint: undefined, status: 404, outcome: 'catalog' });
    await rawExchange(port, get(path), { until: completeByLength });
    await rec.next();
    await rawExchange(port, get(path), { until: completeByLength });
    o = await rec.next();
    t.match(o, { host, status: 429, outcome: 'rate-limited', policy: 'general' });
  });
}

t.test('control: /infinite is decided with the general policy in one call and observed with its policy', async (t) => {
  const rec = recorder();
  t.teardown(rec.stop);
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_GENERAL: '100', RATE_LIMIT_INFINITE: '1' }));
  await rawExchange(port, get('/infinite/json/users/a'), { until: completeByLength });
  t.match(await rec.next(), { endpoint: 'infinite', category: 'infinite', status: 200, outcome: 'served' });
  await rawExchange(port, get('/infinite/json/widgets/a'), { until: completeByLength });
  t.match(await rec.next(), { endpoint: 'infinite', status: 404, outcome: 'refused' });
  await rawExchange(port, get('/infinite/json/users/b'), { until: completeByLength });
  t.match(await rec.next(), { endpoint: 'infinite', status: 429, outcome: 'rate-limited', policy: 'infinite' });
});
