// Fuller chaos requests, opt-in: a definition that declares `capture` gets the
// raw header lines (order and case kept) and a bounded body; every other
// endpoint keeps the default (joined headers, body counted and discarded).
import t from 'tap';
import { chaosEndpoints } from '../../../services/chaos/endpoints/index.js';
import { serviceRegistries } from '../../../services/registries.js';
import { defineChaosEndpoint, sendComplete, type ChaosContext } from '../../../services/chaos/endpoint.js';
import { jsonBody } from '../../../shared/primitives/json.js';
import { Registry } from '../../../shared/registry/registry.js';
import { completeByLength, rawExchange } from '../../helpers/raw.js';
import { startChaos } from '../../helpers/servers.js';
import { parseExchanges } from '../../helpers/final-response.js';

function report(ctx: ChaosContext): void {
  const { req } = ctx;
  sendComplete(ctx, 200, 'application/json', jsonBody({
    rawHeaders: req.rawHeaders ?? null,
    rawHead: req.rawHead?.toString('latin1') ?? null,
    body: req.body?.toString('latin1') ?? null,
    truncated: req.bodyTruncated ?? null,
    bodyBytes: req.bodyBytes,
  }));
}

const probe = defineChaosEndpoint({
  id: 'capture-probe',
  path: '/capture-probe',
  methods: ['GET', 'POST'],
  category: 'inspection',
  summary: 'test only: reports what the parser kept',
  params: {},
  counterpart: null,
  wire: { capture: { rawHeaders: true, body: { max: 8 } } },
  handle: report,
});

const plain = defineChaosEndpoint({
  id: 'plain-probe',
  path: '/plain-probe',
  methods: ['GET', 'POST'],
  category: 'inspection',
  summary: 'test only: reports what the parser kept by default',
  params: {},
  counterpart: null,
  handle: report,
});

t.test('a capturing endpoint gets raw lines and a bounded body; the others the default', async (t) => {
  const registry = serviceRegistries({ chaos: [probe, plain] }).chaos;
  t.equal(registry.captures, true);
  const { port } = await startChaos(t, { registry });
  const head = 'POST /capture-probe?x=1 HTTP/1.1\r\nHost: a\r\nX-Twice: one\r\nx-twice:  two \r\nContent-Length: 11\r\n\r\n';
  const request = `${head}hello world` + 'POST /plain-probe HTTP/1.1\r\nHost: a\r\nX-Twice: one\r\nContent-Length: 3\r\n\r\nabc';
  const r = await rawExchange(port, request, { until: (d) => (parseExchanges(d)?.length ?? 0) >= 2 });
  const [first, second] = parseExchanges(r.data) ?? [];
  const kept = JSON.parse(first!.body.toString()) as Record<string, unknown>;
  t.same(kept.rawHeaders, [['Host', ' a'], ['X-Twice', ' one'], ['x-twice', '  two '], ['Content-Length', ' 11']], 'order, case and duplicates kept');
  t.equal(kept.rawHead, head, 'the head exactly as received');
  t.equal(kept.body, 'hello wo', 'the first max bytes of the body');
  t.equal(kept.truncated, true);
  t.equal(kept.bodyBytes, 11);
  const dflt = JSON.parse(second!.body.toString()) as Record<string, unknown>;
  t.same(dflt, { rawHeaders: null, rawHead: null, body: null, truncated: null, bodyBytes: 3 }, 'counted and discarded');
});

t.test('the shipped registry asks only for its capturing endpoints: the others keep nothing more', async (t) => {
  const { port, server } = await startChaos(t);
  const capturing = chaosEndpoints.filter((e) => e.capture !== undefined);
  t.same(
    capturing.map((e) => e.id).sort(),
    ['anything', 'dump', 'headers', 'redirect-kinds-target', 'user-agent', ...chaosEndpoints.filter((e) => e.path.startsWith('/llm/') || e.path === '/mcp').map((e) => e.id)].sort(),
    'the inspection endpoints, /redirect-kinds/target, the four LLM shapes and /mcp',
  );
  t.equal(server.parserOptions?.capture?.('GET', '/status/200'), undefined, 'another endpoint: nothing asked');
  t.ok(server.parserOptions?.capture?.('POST', '/dump'), '/dump: its capture');
  t.same(server.parserOptions?.capture?.('POST', '/redirect-kinds/target?code=307'), { body: { max: 1024 } }, '/redirect-kinds/target reports a bounded body');
  t.same(server.parserOptions?.capture?.('POST', '/mcp'), { body: { max: 64 * 1024 } });
  const r = await rawExchange(port, 'GET /status/200 HTTP/1.1\r\nHost: a\r\n\r\n', { until: completeByLength });
  t.match(r.data.toString('latin1'), /^HTTP\/1\.1 200 /);
});

t.test('a capture larger than the parser keeps stops start-up', async (t) => {
  const bad = { ...probe, capture: { body: { max: 2 * 1024 * 1024 } } };
  t.throws(() => new Registry('chaos', [bad]), /capture\.body\.max must be a whole number/);
});
