// The held-responses benchmark's C client (bench/held-client.c), compiled here
// with the flags `make bench` uses (`make test` installs gcc), run through the
// benchmark's own runner (bench/streams.ts runClient) against small node:net
// servers in this process: a delayed response whose head arrives split (in the
// middle of its CRLFCRLF, Content-Length in odd case), a stream of timed
// chunks in both connect modes, and the failures it must count by reason.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { DripClientOptions, DripClientPhase } from '../../../bench/drip-client.js';
import { HELD_CLIENT_CFLAGS, runClient, type ClientRun } from '../../../bench/streams.js';
import { DIST, freePort } from '../../helpers/process.js';

type TapTest = Parameters<Parameters<typeof t.test>[0]>[0];

const SOURCE = path.resolve(DIST, '..', 'bench/held-client.c');
const STREAMS = 50;

const buildDir = mkdtempSync(path.join(tmpdir(), 'held-client-'));
t.teardown(() => rmSync(buildDir, { recursive: true, force: true }));
const binary = path.join(buildDir, 'held-client');
// -Werror: a warning in the C client fails here rather than scroll past in `make bench`.
execFileSync('cc', [...HELD_CLIENT_CFLAGS, '-Werror', '-o', binary, SOURCE], { stdio: 'inherit' });

type Answer = (socket: net.Socket) => void;

/** A loopback server that calls `answer` once per connection, when the request head is in. */
async function server(t: { teardown(fn: () => unknown): void }, answer: Answer): Promise<number> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      answer(socket);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    srv.close();
  });
  return (srv.address() as net.AddressInfo).port;
}

/**
 * Writes each piece at its time (ms after the request, each timer set when the
 * piece before it was written: a late loop running separate timers out of
 * order would send a head's end before its start), then leaves the connection
 * open as a keep-alive server would. `gaps` gets, per connection, how far apart
 * its first and last writes really were: the server is node, and on a busy
 * machine its timers fire late.
 */
function timed(pieces: readonly (readonly [number, string])[], gaps: number[] = []): Answer {
  return (socket) => {
    let firstAt = 0;
    const writeFrom = (i: number, previousAt: number): void => {
      const piece = pieces[i];
      if (!piece) return;
      setTimeout(() => {
        if (socket.destroyed) return;
        socket.write(piece[1]);
        if (i === 0) firstAt = performance.now();
        if (i === pieces.length - 1) gaps.push(performance.now() - firstAt);
        writeFrom(i + 1, piece[0]);
      }, piece[0] - previousAt);
    };
    writeFrom(0, 0);
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The client's spans (first byte to last) follow what the server really did, within `toleranceMs` at the median. */
function spansFollow(t: TapTest, spans: readonly number[], gaps: readonly number[], what: string, toleranceMs = 15): void {
  const client = median(spans);
  const server = median(gaps);
  t.ok(Math.abs(client - server) <= toleranceMs, `${what}: median first byte to last ${client.toFixed(1)} ms, the server's writes ${server.toFixed(1)} ms apart`);
}

async function run(port: number, options: Partial<DripClientOptions> = {}): Promise<{ result: ClientRun; phases: string[] }> {
  const phases: string[] = [];
  const result = await runClient(
    { port, streams: STREAMS, path: '/held', rampMs: 100, timeoutMs: 5_000, ...options },
    (phase: DripClientPhase) => phases.push(phase.phase),
    undefined,
    { kind: 'c', binary },
  );
  return { result, phases };
}

const RESULT_KEYS = ['clientLoopDelayMaxMs', 'clientLoopDelayP99Ms', 'connectMs', 'failed', 'failures', 'maxInFlight', 'rampActualMs', 'rampStartNs', 'runQueueSeconds', 'timings', 'type'];

t.test('a delayed response, its head split across two writes: request to first byte, per stream', async (t) => {
  const gaps: number[] = [];
  const port = await server(
    t,
    timed(
      [
        [100, 'HTTP/1.1 200 OK\r\nX-Pad: a\r\nconTent-LENGTH:  5\r'],
        [130, '\n\r\nhello'],
      ],
      gaps,
    ),
  );
  const before = Number(process.hrtime.bigint());
  const { result, phases } = await run(port, { connectPerRequest: true, host: 'example.test' });
  const after = Number(process.hrtime.bigint());
  t.same(Object.keys(result).sort(), RESULT_KEYS, 'the result has the node client\'s shape (plus the runner\'s run-queue wait and the C client\'s ramp start)');
  // CLOCK_MONOTONIC, node's hrtime clock too: a server's monotonic log lines up with the timings (bench/held-gc.ts).
  const rampStart = result.rampStartNs ?? Number.NaN;
  t.ok(rampStart > before && rampStart < after, `the ramp started (${rampStart} ns) within the run, on this process's monotonic clock`);
  t.same(phases, ['requested'], 'one phase when each socket connects as its request is due');
  t.equal(result.failed, 0, JSON.stringify(result.failures));
  t.equal(result.timings.length, STREAMS, 'every stream completed');
  for (const timing of result.timings) {
    if (timing.firstByteMs < 95 || timing.firstByteMs > 400) t.fail(`first byte after ${timing.firstByteMs} ms (the server waits 100)`);
    if (timing.spanMs < 0 || timing.spanMs > 300) t.fail(`head to body end ${timing.spanMs} ms (the rest comes 30 ms later)`);
  }
  spansFollow(t, result.timings.map((timing) => timing.spanMs), gaps, 'split head');
  t.ok(result.rampActualMs >= 90 && result.rampActualMs < 1000, `the ramp took ${result.rampActualMs} ms (100 asked)`);
  t.equal(result.connectMs, 0, 'no connect phase');
  t.ok(Number.isFinite(result.clientLoopDelayP99Ms) && result.clientLoopDelayP99Ms >= 0 && result.clientLoopDelayP99Ms <= result.clientLoopDelayMaxMs);
});

t.test('a stream of five chunks 50 ms apart: first byte to last, in both connect modes', async (t) => {
  for (const connectPerRequest of [true, false]) {
    const gaps: number[] = [];
    const chunk = '0123456789';
    const port = await server(
      t,
      timed(
        [
          [0, `HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n${chunk}`],
          [50, chunk],
          [100, chunk],
          [150, chunk],
          [200, chunk],
        ],
        gaps,
      ),
    );
    const { result, phases } = await run(port, { connectPerRequest });
    const mode = connectPerRequest ? 'per request' : 'connect first';
    t.same(phases, connectPerRequest ? ['requested'] : ['connected', 'requested'], `${mode}: phases`);
    t.equal(result.timings.length, STREAMS, `${mode}: every stream completed ${JSON.stringify(result.failures)}`);
    const spans = result.timings.map((timing) => timing.spanMs);
    t.ok(Math.min(...spans) >= 100 && Math.max(...spans) < 600, `${mode}: first byte to last ${Math.min(...spans)}..${Math.max(...spans)} ms (200 scheduled)`);
    spansFollow(t, spans, gaps, mode);
    const firstAt = result.timings.map((timing) => timing.firstAtMs);
    t.ok(Math.min(...firstAt) >= 0 && Math.max(...firstAt) < 1000, `${mode}: first bytes within the ramp (100 ms) and a little`);
    t.ok(result.maxInFlight > 1 && result.maxInFlight <= STREAMS, `${mode}: ${result.maxInFlight} streams between first and last byte at once`);
    if (!connectPerRequest) t.ok(result.connectMs > 0, `connect first: the connect phase took ${result.connectMs} ms`);
  }
});

t.test('--chunk-bytes judges every chunk against first byte + k × interval', async (t) => {
  // Chunks due every 50 ms; the fourth and fifth leave 100 ms late (each write's timer starts at the one
  // before, so a busy machine can only make a chunk later): at most 3 of 5 per stream can be within 10 ms.
  const chunk = '0123456789';
  const port = await server(
    t,
    timed([
      [0, `HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n${chunk}`],
      [50, chunk],
      [100, chunk],
      [250, chunk],
      [300, chunk],
    ]),
  );
  const { result } = await run(port, { connectPerRequest: true, chunk: { bytes: 10, intervalMs: 50 } });
  t.equal(result.failed, 0, JSON.stringify(result.failures));
  const chunks = result.chunks;
  if (!chunks) throw new Error('no chunks in the result');
  t.equal(chunks.count, 5 * STREAMS, 'five chunks a stream, each judged once');
  t.ok(chunks.within10Ms >= STREAMS, `${chunks.within10Ms} within 10 ms: at least every first chunk (it is the reference)`);
  t.ok(chunks.within10Ms <= 3 * STREAMS, `${chunks.within10Ms} within 10 ms: not the two late ones of each stream`);
  t.ok(chunks.p99Ms >= 95 && chunks.maxMs < 1000, `p99 ${chunks.p99Ms} ms (the late chunks are 100 ms late), max ${chunks.maxMs} ms`);
  t.ok(chunks.p50Ms < 45, `p50 ${chunks.p50Ms} ms: three chunks of five are on time, each against its own k × 50 ms`);
  t.ok(chunks.p50Ms <= chunks.p99Ms && chunks.p99Ms <= chunks.maxMs, 'quantiles in order');
});

t.test('--sources spreads the connections over loopback addresses; --keep-open holds them until let go', async (t) => {
  const remotes = new Set<string>();
  let connection = 0;
  const port = await server(t, (socket) => {
    remotes.add(socket.remoteAddress ?? '?');
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    // Every other connection is closed by the server while the client holds it.
    if (connection++ % 2 === 1) setTimeout(() => socket.end(), 50);
  });
  let heldFor = 0;
  const result = await runClient(
    { port, streams: STREAMS, path: '/held', rampMs: 100, timeoutMs: 5_000, connectPerRequest: true, sources: 3, keepOpen: true },
    undefined,
    undefined,
    { kind: 'c', binary },
    async () => {
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 400));
      heldFor = performance.now() - started;
    },
  );
  t.equal(result.timings.length, STREAMS, 'every response complete');
  t.same([...remotes].sort(), ['127.0.0.1', '127.0.0.2', '127.0.0.3'], 'connections came from three loopback addresses');
  t.ok(heldFor >= 390, 'the runner waited for the caller before letting the client go');
  t.same(result.kept, { open: STREAMS / 2, closedByServer: STREAMS / 2 }, 'the sockets the server closed are told from those still open');
});

t.test('failures are counted by reason', async (t) => {
  const cases: [string, Answer | 'refused', Record<string, number>, Partial<DripClientOptions>?][] = [
    ['a 500', (socket) => socket.write('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n'), { 'status 500': STREAMS }],
    ['a reset', (socket) => socket.resetAndDestroy(), { ECONNRESET: STREAMS }],
    ['part of the body, then a FIN', (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'), { 'closed early': STREAMS }],
    ['no Content-Length', (socket) => socket.end('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabc'), { 'no content-length': STREAMS }],
    ['no answer', () => {}, { timeout: STREAMS }, { timeoutMs: 300 }],
    ['nothing listening', 'refused', { ECONNREFUSED: STREAMS }],
  ];
  for (const [name, answer, failures, options] of cases) {
    const port = answer === 'refused' ? await freePort() : await server(t, answer);
    for (const connectPerRequest of [true, false]) {
      const { result } = await run(port, { connectPerRequest, ...options });
      t.same(result.failures, failures, `${name} (${connectPerRequest ? 'per request' : 'connect first'})`);
      t.equal(result.failed, STREAMS);
      t.equal(result.timings.length, 0);
    }
  }
});

t.test('the binary states its usage and refuses a run without a port', async (t) => {
  try {
    execFileSync(binary, ['--streams', '3'], { stdio: 'pipe' });
    t.fail('it ran without --port');
  } catch (error) {
    const failed = error as { status: number; stderr: Buffer };
    t.equal(failed.status, 2);
    t.match(failed.stderr.toString(), /--port/);
  }
});
