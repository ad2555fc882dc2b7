// /compare through the real front door (`make up`'s stack: HAProxy, Redis,
// replicas): the chaos side arrives byte for byte over the tcp route, the twin
// through HAProxy's http mode, which rewrites the connection-management fields.
// What the proxy rewrites is not reported as a difference of the services.
import t from 'tap';
import type { CompareReport, SideReport } from '../../../shared/hub/compare/report.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startStack, type Stack } from '../../helpers/stack.js';

async function compareThroughFrontDoor(stack: Stack, path: string): Promise<CompareReport> {
  const hubHost = new URL(stack.urls.hub).host;
  const request = get(`/compare?path=${encodeURIComponent(path)}&format=json`, { Host: hubHost, Connection: 'close' });
  const result = await rawExchange(stack.front, request, { until: completeByLength, timeoutMs: 20_000 });
  const response = parseHead(result.data);
  if (response.status !== 200) throw new Error(`/compare answered ${response.status}: ${response.rest.toString().slice(0, 300)}`);
  return JSON.parse(response.rest.toString()) as CompareReport;
}

const fieldNames = (side: SideReport | null): string[] => (side?.head_lines ?? []).map((l) => (l.name ?? '').toLowerCase());

t.test('through the front door, the proxy\'s connection fields and the reason phrase\'s case are no difference', async (t) => {
  // One replica of each service: the noise is HAProxy's, whatever the count; lighter on a busy machine.
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '0', REPLICAS: '1' });

  const teapot = await compareThroughFrontDoor(stack, '/status/418');
  t.equal(teapot.chaos.connected_to, `127.0.0.1:${stack.front}`, 'the chaos side went through the front door');
  t.equal(teapot.twin?.connected_to, `127.0.0.1:${stack.front}`, 'so did the twin');
  // The noise is there on the wire: without it this test would prove nothing.
  t.ok(fieldNames(teapot.twin).includes('keep-alive'), `HAProxy passes the twin's Keep-Alive on (${teapot.twin?.head_lines.map((l) => l.raw).join(' | ')})`);
  t.ok(fieldNames(teapot.twin).includes('connection'), 'beside its own Connection');
  t.not(teapot.chaos.status_line, teapot.twin?.status_line, `the status lines differ as sent (${teapot.chaos.status_line} / ${teapot.twin?.status_line})`);
  t.equal(teapot.chaos.status_line?.toLowerCase(), teapot.twin?.status_line?.toLowerCase(), 'only in case');
  t.same(teapot.differences.filter((d) => d.kind !== 'body'), [], 'no status, connection or header difference');

  const honest = await compareThroughFrontDoor(stack, '/status/200');
  t.same(honest.differences.filter((d) => d.kind === 'headers-one-side' || d.kind === 'status'), [], `an honest pair: ${JSON.stringify(honest.differences)}`);

  // A lie about the connection is still the service's lie, told through the byte-transparent route.
  const lie = await compareThroughFrontDoor(stack, '/keepalive-lie');
  t.ok(fieldNames(lie.twin).includes('connection'), 'the twin answered');
  t.same(
    lie.differences.filter((d) => /connection/i.test(d.detail)).map((d) => d.detail),
    [`connection: chaos keeps the connection open (Connection: "keep-alive"), twin does not (Connection: ${JSON.stringify(lie.twin?.head_lines.find((l) => l.name?.toLowerCase() === 'connection')?.value)})`],
    '/keepalive-lie\'s promise is reported by meaning',
  );
});
