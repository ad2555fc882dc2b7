// The same request again (issue 15): the chaos pipeline remembers a served
// request's routing decision (endpoint, parameter values, clamps) by path and
// query, and its parser hands on a head that repeats the previous one as the
// same request. A repeat must be answered as if decided afresh: the method
// judged again, the clamps reported again, and no handler may change the
// values it now shares with every later request (they are frozen: a handler
// that wrote to them would fail, 500, on the first repeat). A replayable
// endpoint's response is recorded per variant (HTTP version, keep-alive,
// HEAD) and written again without its handler: byte for byte the same, but
// for a Date of its own.
import t from 'tap';
import { defineChaosEndpoint, sendComplete, type ChaosContext } from '../../../services/chaos/endpoint.js';
import { exampleOf } from '../../../shared/catalog/catalog.js';
import { str } from '../../../shared/primitives/params.js';
import { Registry } from '../../../shared/registry/registry.js';
import { get, parseHead, rawExchange, splitResponses } from '../../helpers/raw.js';
import { startChaos, testConfig } from '../../helpers/servers.js';
import { serviceEndpoints, serviceRegistries } from '../../../services/registries.js';
import { createRegistries } from '../../../shared/registry/registries.js';

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
  const examples = serviceRegistries().chaos
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

/** The response bytes with the Date value masked (a replay carries its own Date). */
function masked(data: Buffer): string {
  return data.toString('latin1').replace(/\r\nDate: [^\r]*\r\n/g, '\r\nDate: DATE\r\n');
}

t.test('a replayed response is the recorded one, byte for byte but its Date, in every variant', async (t) => {
  const { port } = await startChaos(t);
  // The same endpoints, none replayable: every answer comes from its handler.
  const fresh = createRegistries({ ...serviceEndpoints, chaos: serviceEndpoints.chaos.map((e) => ({ ...e, replayable: false })) }).chaos;
  const reference = await startChaos(t, { registry: fresh });
  const targets = [
    '/status/200',
    '/status/204',
    '/status/103',
    '/status/101',
    '/status/99999',
    '/bytes?n=1024&mode=wrong-content-type',
    '/bytes?n=10&mode=content-length-undershoot&seed=u',
    '/bytes?n=16&mode=wrong-content-type&seed=a%20b',
  ];
  const variants: readonly [string, (target: string) => string][] = [
    ['HTTP/1.1 GET', (target) => get(target)],
    ['HEAD', (target) => get(target, {}, 'HEAD')],
    ['Connection: close', (target) => get(target, { Connection: 'close' })],
    ['HTTP/1.0', (target) => `GET ${target} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n`],
  ];
  for (const target of targets) {
    for (const [name, request] of variants) {
      const answers: string[] = [];
      // A fresh connection each, stopped once the bytes have stopped coming (an undershoot leaves the rest unread).
      for (let i = 0; i < 3; i++) answers.push(masked((await rawExchange(port, request(target), { timeoutMs: 300 })).data));
      const expected = masked((await rawExchange(reference.port, request(target), { timeoutMs: 300 })).data);
      t.ok(expected.startsWith('HTTP/1.1 '), `${target} ${name}: answered`);
      t.same(answers, [expected, expected, expected], `${target} ${name}: first answer and repeats as the handler writes them`);
    }
  }
});

t.test('a replayable endpoint runs its handler once per variant; another runs every time', async (t) => {
  const calls = { replayable: 0, plain: 0, rest: 0 };
  const body = (ctx: ChaosContext): Buffer => Buffer.from(`${ctx.req.path} ${ctx.req.version} ${ctx.keepAlive}\n`, 'latin1');
  const registry = new Registry<ChaosContext>('chaos', [
    defineChaosEndpoint({
      id: 'recorded',
      path: '/recorded',
      category: 'status',
      summary: 'recorded',
      params: {},
      wire: { replayable: true },
      handle(ctx) {
        calls.replayable++;
        sendComplete(ctx, 200, 'text/plain', body(ctx));
      },
    }),
    defineChaosEndpoint({
      id: 'under',
      path: '/under/{rest*}',
      category: 'status',
      summary: 'an unbounded family of paths',
      params: { rest: str({ in: 'path', maxLength: 100, default: '' }) },
      wire: { replayable: true },
      handle(ctx) {
        calls.rest++;
        sendComplete(ctx, 200, 'text/plain', body(ctx));
      },
    }),
    defineChaosEndpoint({
      id: 'plain',
      path: '/plain',
      category: 'status',
      summary: 'plain',
      params: {},
      handle(ctx) {
        calls.plain++;
        sendComplete(ctx, 200, 'text/plain', body(ctx));
      },
    }),
  ]);
  const { port } = await startChaos(t, { registry });
  const three = (target: string, headers: Record<string, string> = {}): string => get(target, headers).repeat(3);
  const pipelined = await rawExchange(port, three('/recorded') + three('/plain'), { until: (data) => splitResponses(data).length === 6 });
  const responses = splitResponses(pipelined.data);
  t.same(
    responses.map((r) => r.body.toString('latin1')),
    ['/recorded 1.1 true\n', '/recorded 1.1 true\n', '/recorded 1.1 true\n', '/plain 1.1 true\n', '/plain 1.1 true\n', '/plain 1.1 true\n'],
  );
  t.same(calls, { replayable: 1, plain: 3, rest: 0 }, 'the replayable handler ran once for three requests');
  await rawExchange(port, get('/recorded', { Connection: 'close' }), { timeoutMs: 300 });
  await rawExchange(port, get('/recorded', { Connection: 'close' }), { timeoutMs: 300 });
  t.equal(calls.replayable, 2, 'once more for a last response (Connection: close), then replayed');
  const head = await rawExchange(port, get('/recorded', {}, 'HEAD'), { timeoutMs: 300 });
  t.equal(calls.replayable, 3, 'once more for HEAD');
  t.equal(parseHead(head.data).rest.length, 0, 'HEAD has no body');
  const other = await rawExchange(port, get('/recorded?x=1'), { timeoutMs: 300 });
  t.equal(calls.replayable, 4, 'another query is another decision');
  t.equal(parseHead(other.data).status, 200);
  // A long target is decided afresh every time (not remembered, so nothing to replay).
  const long = get(`/recorded?pad=${'p'.repeat(600)}`);
  await rawExchange(port, long + long, { until: (data) => splitResponses(data).length === 2 });
  t.equal(calls.replayable, 6, 'a target over 512 characters: the handler both times');
  // Under a rest segment (/infinite's kind of path) nothing is remembered, so nothing is replayed.
  const under = await rawExchange(port, three('/under/a/b'), { until: (data) => splitResponses(data).length === 3 });
  t.equal(splitResponses(under.data).length, 3);
  t.equal(calls.rest, 3, 'a path under a rest segment: the handler every time');
});
