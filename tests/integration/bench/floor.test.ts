// The benchmark's chaos transport floor (bench/chaos-floor.ts) must put the
// minimal responder's exact bytes on the wire through chaos's own transport, or
// "floor ÷ minimal" compares different work: every request gets the canned
// response, the connection's last one (chaos closes after 1000) says
// Connection: close before the FIN, and input the parser refuses gets a 400.
// And the suite's CPU probe (bench/lib.ts cpuProbeMs) reads a time.
import type net from 'node:net';
import t from 'tap';
import { createChaosFloor } from '../../../bench/chaos-floor.js';
import { cpuProbeMs } from '../../../bench/lib.js';
import { listen } from '../../../bench/minimal-responder.js';
import { get, rawExchange, splitResponses } from '../../helpers/raw.js';

const BODY = 'canned body\n';
const CANNED = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`, 'latin1');

async function floor(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const server: net.Server = createChaosFloor(CANNED);
  const port = await listen(server, 0, '127.0.0.1');
  t.teardown(() => server.close());
  return port;
}

t.test('keep-alive requests each get the canned bytes, unchanged', async (t) => {
  const port = await floor(t);
  const result = await rawExchange(port, [get('/'), get('/anything?at=all')], { until: (data) => data.length >= 2 * CANNED.length, timeoutMs: 3000 });
  t.equal(result.end, 'stopped', 'the connection stays open after two answers');
  t.same(result.data, Buffer.concat([CANNED, CANNED]), 'two copies of the canned response, byte for byte');
});

t.test('a HEAD request gets the canned head alone', async (t) => {
  const port = await floor(t);
  const head = CANNED.subarray(0, CANNED.indexOf('\r\n\r\n') + 4);
  const result = await rawExchange(port, [`HEAD / HTTP/1.1\r\nHost: x\r\n\r\n`, get('/')], { until: (data) => data.length >= head.length + CANNED.length, timeoutMs: 3000 });
  t.same(result.data, Buffer.concat([head, CANNED]), 'the head, then the next response whole');
});

t.test("the connection's 1000th response says Connection: close, then the floor closes", async (t) => {
  const port = await floor(t);
  const result = await rawExchange(port, Array.from({ length: 1001 }, () => get('/')), { timeoutMs: 10_000 });
  t.equal(result.end, 'fin', 'closed with a FIN');
  const responses = splitResponses(result.data);
  t.equal(responses.length, 1000, 'answers 1000 requests on one connection, like chaos');
  t.same(responses[0]?.response.headers('connection'), [], 'the first response has no Connection field');
  t.same(responses[999]?.response.headers('connection'), ['close'], 'the last one says close');
  t.equal(responses[999]?.body.toString('latin1'), BODY, 'and carries the canned body');
});

t.test('input the parser refuses gets a 400 and a close', async (t) => {
  const port = await floor(t);
  const result = await rawExchange(port, 'GARBAGE\r\n\r\n', { timeoutMs: 3000 });
  t.equal(result.end, 'fin');
  t.match(result.data.toString('latin1'), /^HTTP\/1\.1 400 [^\r]*\r\n[^]*Connection: close\r\n\r\n$/, '400, closed');
});

t.test('the CPU probe times its loop on a core', async (t) => {
  const ms = cpuProbeMs(0);
  t.ok(Number.isFinite(ms) && ms > 0 && ms < 60_000, `probe took ${ms} ms`);
});
