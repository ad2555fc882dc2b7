// The same request again (issue 15): the chaos pipeline remembers a served
// request's routing decision (endpoint, parameter values, clamps) by path and
// query, and its parser hands on a head that repeats the previous one as the
// same request. A repeat must be answered as if decided afresh: the method
// judged again, the clamps reported again, and no handler may change the
// values it now shares with every later request (they are frozen: a handler
// that wrote to them would fail, 500, on the first repeat).
import t from 'tap';
import { createChaosRegistry } from '../../services/chaos/endpoints/index.js';
import { exampleOf } from '../../shared/catalog.js';
import { get, parseHead, rawExchange, splitResponses } from '../helpers/raw.js';
import { startChaos, testConfig } from '../helpers/servers.js';

/** The slowest example (/slow) waits about a second before its status line. */
const STATUS_LINE_MS = 8000;
const PARALLEL = 6;

function statusOf(data: Buffer): number | undefined {
  const m = /^HTTP\/[\d.]+ (\d{3})/.exec(data.subarray(0, 40).toString('latin1'));
  return m ? Number(m[1]) : undefined;
}

/** A real failure (a handler that threw): 500 with no X-Chaos-* line, unlike a chaos 500 (/flaky's). */
function realFailure(data: Buffer): boolean {
  const text = data.toString('latin1');
  return statusOf(data) === 500 && !/\r\nX-Chaos-/i.test(text.slice(0, text.indexOf('\r\n\r\n')));
}

t.test('every endpoint answers its example twice without a real failure', async (t) => {
  const config = testConfig({ RATE_LIMIT_INFINITE: '0' });
  const { port } = await startChaos(t, { config });
  const examples = createChaosRegistry()
    .endpoints.map((endpoint) => exampleOf(endpoint, config))
    .filter((example) => example.method === 'GET');
  t.ok(examples.length > 40, `${examples.length} GET examples`);
  const failures: string[] = [];
  const queue = [...examples];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let example = queue.shift(); example !== undefined; example = queue.shift()) {
        for (const round of ['first', 'repeat']) {
          const res = await rawExchange(port, get(example.target, { Connection: 'close' }), {
            timeoutMs: STATUS_LINE_MS,
            // The status line, and for a 500 the whole head (is it ours or the endpoint's?).
            until: (data) => data.includes('\n') && (statusOf(data) !== 500 || data.includes('\r\n\r\n')),
          });
          if (realFailure(res.data)) failures.push(`${example.target}: ${round} failed (500 without X-Chaos-*)`);
        }
      }
    }),
  );
  t.same(failures, [], 'no repeat fails');
});

t.test('a repeat is decided as the first was', async (t) => {
  const { port } = await startChaos(t);
  await t.test('the clamp is reported on every repeat', async (t) => {
    const request = get('/status/99999');
    const res = await rawExchange(port, request + request + request, { until: (data) => splitResponses(data).length === 3 });
    const responses = splitResponses(res.data);
    t.equal(responses.length, 3);
    for (const { response } of responses) {
      t.equal(response.status, 599);
      t.equal(response.header('x-chaos-clamped'), 'code=599');
    }
  });
  await t.test('the method is judged on every request', async (t) => {
    const res = await rawExchange(port, get('/status/200') + get('/status/200', {}, 'DELETE') + get('/status/200', {}, 'HEAD'), {
      until: (data) => (data.toString('latin1').match(/HTTP\/1\.1 /g) ?? []).length === 3,
    });
    const [ok, refused] = splitResponses(res.data.subarray(0, res.data.lastIndexOf('HTTP/1.1 ')));
    t.equal(ok?.response.status, 200);
    t.equal(refused?.response.status, 405, 'DELETE after a remembered GET: 405');
    t.equal(refused?.response.header('allow'), 'GET, HEAD');
    const head = parseHead(res.data.subarray(res.data.lastIndexOf('HTTP/1.1 ')));
    t.equal(head.status, 200, 'HEAD, allowed, after the 405');
    t.equal(head.rest.length, 0, 'and without a body');
  });
  await t.test('another query is another decision', async (t) => {
    const res = await rawExchange(port, get('/bytes?n=8&mode=wrong-content-type') + get('/bytes?n=9&mode=wrong-content-type'), {
      until: (data) => splitResponses(data).length === 2,
    });
    const [a, b] = splitResponses(res.data);
    t.equal(a?.response.header('x-chaos-actual-bytes'), '8');
    t.equal(b?.response.header('x-chaos-actual-bytes'), '9');
  });
});
