// The hot path's cells expose exactly what prom-client's own children would
// for the same observations: same series, same order of labels, same values.
import client from 'prom-client';
import t from 'tap';
import { CellCounter, CellHistogram } from '../../shared/runtime/metric-cells.js';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];
const LABELS = ['host', 'endpoint', 'status_class'];
const OBSERVED: [string, string, string, number][] = [
  ['chaos', '/a', '2xx', 0.0004],
  ['chaos', '/a', '2xx', 0.001],
  ['chaos', '/a', '2xx', 0.05],
  ['chaos', '/a', '5xx', 3],
  ['chaos', '/b', '2xx', 42],
];

t.test('a cell histogram exposes what a prom-client histogram does', async (t) => {
  const ours = new client.Registry();
  const theirs = new client.Registry();
  const cells = new CellHistogram({ name: 'h_seconds', help: 'h', labelNames: LABELS, buckets: BUCKETS, registers: [ours] });
  const reference = new client.Histogram({ name: 'h_seconds', help: 'h', labelNames: LABELS, buckets: BUCKETS, registers: [theirs] });
  cells.cell('chaos', '/never', '2xx'); // created, never observed: not exposed
  for (const [host, endpoint, statusClass, value] of OBSERVED) {
    cells.cell(host, endpoint, statusClass).observe(value);
    reference.labels(host, endpoint, statusClass).observe(value);
  }
  const text = await ours.metrics();
  t.equal(text, await theirs.metrics(), 'the same exposition text');
  t.match(text, 'h_seconds_bucket{le="0.001",host="chaos",endpoint="/a",status_class="2xx"} 2', 'a value on a bound counts in that bucket');
  t.match(text, 'h_seconds_bucket{le="10",host="chaos",endpoint="/b",status_class="2xx"} 0\nh_seconds_bucket{le="+Inf",host="chaos",endpoint="/b",status_class="2xx"} 1', 'past the last bound: +Inf only');
  t.notMatch(text, '/never', 'a series never observed is not exposed');
});

t.test('a cell counter exposes what a prom-client counter does, and keeps its own series', async (t) => {
  const ours = new client.Registry();
  const theirs = new client.Registry();
  const cells = new CellCounter({ name: 'c_total', help: 'c', labelNames: ['endpoint', 'code'], registers: [ours] });
  const reference = new client.Counter({ name: 'c_total', help: 'c', labelNames: ['endpoint', 'code'], registers: [theirs] });
  const a = cells.cell('/a', '200');
  a.value++;
  a.value += 2;
  t.equal(cells.cell('/a', '200'), a, 'one cell per label values');
  cells.cell('/b', '0').value += 0;
  reference.labels('/a', '200').inc(3);
  reference.labels('/b', '0').inc(0);
  t.equal(await ours.metrics(), await theirs.metrics(), 'the same exposition text');
  t.throws(() => cells.cell('/a'), /expected 2 label values/);
});
