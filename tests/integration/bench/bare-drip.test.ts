// The node:net floor of held responses (bench/bare-drip.ts) must answer the
// chaos paths the benchmarks send as chaos does on the wire, or "chaos ÷ floor"
// compares different work: /slow after its delay, in one write; /drip with its
// first chunk in the head's write, the rest on schedule; anything else at once.
import t from 'tap';
import { createBareDrip } from '../../../bench/bare-drip.js';
import { listen } from '../../../bench/minimal-responder.js';
import { get, rawExchange, splitResponses } from '../../helpers/raw.js';

async function floor(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const server = createBareDrip();
  const port = await listen(server, 0, '127.0.0.1');
  t.teardown(() => server.close());
  return port;
}

/** Until the response ends with `tail` (a partial response parses too, so the count alone does not say it is whole). */
const endsWith = (tail: string) => (data: Buffer): boolean => data.toString('latin1').endsWith(tail);

t.test('/slow?ms=N answers a small JSON 200 once N ms have passed, in one write', async (t) => {
  const port = await floor(t);
  const result = await rawExchange(port, get('/slow?ms=150'), { until: endsWith('}'), timeoutMs: 5000 });
  const [response] = splitResponses(result.data);
  t.equal(response?.response.status, 200);
  t.same(response?.response.headers('content-type'), ['application/json']);
  t.same(JSON.parse(response?.body.toString('latin1') ?? 'null'), { delayed_ms: 150 });
  t.equal(result.arrivals.length, 1, 'head and body arrive together');
  t.ok((result.arrivals[0]?.at ?? 0) >= 145, `first byte after ${result.arrivals[0]?.at.toFixed(1)} ms`);
});

t.test('/drip sends its first chunk with the head, then one a interval', async (t) => {
  const port = await floor(t);
  const result = await rawExchange(port, get('/drip?bytes=3&chunk=1&interval=100'), { until: endsWith('\r\n\r\n***'), timeoutMs: 5000 });
  const [response] = splitResponses(result.data);
  t.same(response?.response.headers('content-length'), ['3']);
  t.equal(response?.body.toString('latin1'), '***');
  t.equal(result.arrivals.length, 3, 'three writes');
  t.ok((result.arrivals[2]?.at ?? 0) >= 195, `last chunk after ${result.arrivals[2]?.at.toFixed(1)} ms`);
});

t.test('any other path gets a small 200 at once, on a kept connection', async (t) => {
  const port = await floor(t);
  const result = await rawExchange(port, [get('/status/200'), get('/anything')], { until: endsWith('{}HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'), timeoutMs: 3000 });
  t.equal(result.end, 'stopped');
  t.same(
    splitResponses(result.data).map((r) => r.body.toString('latin1')),
    ['{}', '{}'],
  );
});
