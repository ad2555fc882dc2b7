// HTTP/2 requests per second (issue 28): h2load (Debian nghttp2-client) over
// ONE prior-knowledge connection with 1, 10 and 100 concurrent streams asking
// for /status/200, against the chaos host (its own frame writer and reader),
// a minimal node:http2 server, and the control twin (node:http2 through the
// compatibility API and the same pipeline as HTTP/1.1), in one run. Each
// server runs alone on core 0 (taskset), h2load on core 1. One connection
// carries at most 100 requests here: chaos ends a connection with GOAWAY after
// 100 streams (its reader's bound, docs/http2.md) and h2load does not open
// another (it fails the rest), so each run is `-n 100 -c 1` and a cell is the
// median of BENCH_RUNS runs (each run's rate includes its connection's setup,
// alike for all three). chaos advertises SETTINGS_MAX_CONCURRENT_STREAMS 8:
// at 10 and 100 streams h2load keeps 8 open there. So the run adds the
// minimal server advertising 8 too ("8 streams"), asked by h2load for at most
// 8 at once (node:http2 refuses the streams h2load opens past the bound
// before it has read the SETTINGS, which h2load counts as failed): chaos at
// 10 and 100 streams is compared with it as well, the same 8 in flight on
// both sides, so the ratio measures the code, not the bound. Ratios are
// the figure to keep: the machine's load is printed beside them.
// Run: `node dist/bench/http2.js` (BENCH_RUNS per cell, default 30).
import { execFile } from 'node:child_process';
import http2 from 'node:http2';
import { pathToFileURL } from 'node:url';
import { CORES, envInt, forkServer, loadAverage, markdownTable, median, type Child } from './lib.js';

/** The minimal server: node:http2 answering every request with /status/200's size of body; BENCH_HTTP2_STREAMS concurrent streams (100). */
function serveMinimal(): void {
  const body = Buffer.from('{"endpoint":"/status/200","status":200,"reason":"OK"}\n');
  const server = http2.createServer({ settings: { maxConcurrentStreams: envInt('BENCH_HTTP2_STREAMS', 100) } });
  server.on('stream', (stream) => {
    stream.respond({ ':status': 200, 'content-type': 'application/json', 'content-length': body.length });
    stream.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
  });
}

interface H2loadResult {
  readonly perSecond: number;
  readonly succeeded: number;
  readonly failed: number;
}

/** h2load on `core`: `requests` GETs over one connection at a time with `streams` concurrent streams. */
function h2load(port: number, streams: number, requests: number, core: number | undefined): Promise<H2loadResult> {
  const args = ['-n', String(requests), '-c', '1', '-m', String(streams), `http://127.0.0.1:${port}/status/200`];
  const [file, ...rest] = core === undefined ? ['h2load', ...args] : ['taskset', '-c', String(core), 'h2load', ...args];
  return new Promise((resolve, reject) => {
    execFile(file as string, rest, { timeout: 120_000 }, (error, stdout) => {
      const rate = /finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(stdout);
      const counts = /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed/.exec(stdout);
      if (!rate || !counts) return reject(new Error(`h2load said nothing usable (${error?.message ?? 'no error'}):\n${stdout}`));
      resolve({ perSecond: Number(rate[1]), succeeded: Number(counts[1]), failed: Number(counts[2]) });
    });
  });
}

/** The minimal node:http2 server advertising chaos's 8 concurrent streams. */
const MINIMAL_8 = 'node:http2 (minimal, 8 streams)';

async function main(): Promise<void> {
  const requests = 100;
  const runs = envInt('BENCH_RUNS', 30);
  const serverCore = CORES > 1 ? 0 : undefined;
  const clientCore = CORES > 1 ? 1 : undefined;
  const env = { LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '0', MAX_CONNECTIONS_PER_IP: '0' };
  const servers: [string, Child][] = [];
  try {
    servers.push(['chaos', await forkServer('services/chaos/main.js', { ...env, CHAOS_PORT: '0' }, { ...(serverCore !== undefined ? { core: serverCore } : {}) })]);
    servers.push(['node:http2 (minimal)', await forkServer('bench/http2.js', { BENCH_HTTP2_ROLE: 'minimal' }, { ...(serverCore !== undefined ? { core: serverCore } : {}) })]);
    // chaos's own bound on concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS 8), on the minimal server.
    servers.push([MINIMAL_8, await forkServer('bench/http2.js', { BENCH_HTTP2_ROLE: 'minimal', BENCH_HTTP2_STREAMS: '8' }, { ...(serverCore !== undefined ? { core: serverCore } : {}) })]);
    servers.push(['control twin', await forkServer('services/control/main.js', { ...env, CONTROL_PORT: '0' }, { ...(serverCore !== undefined ? { core: serverCore } : {}) })]);
    const streamCounts = [1, 10, 100] as const;
    const results = new Map<string, H2loadResult[]>();
    for (let i = 0; i < 10; i++) for (const [, child] of servers) await h2load(child.port, 10, requests, clientCore); // warm-up, JIT
    // Interleaved run by run: a busy machine's drift falls on all three alike.
    for (let run = 0; run < runs; run++) {
      for (const streams of streamCounts) {
        for (const [name, child] of servers) {
          const key = `${name}|${streams}`;
          const list = results.get(key) ?? [];
          list.push(await h2load(child.port, name === MINIMAL_8 ? Math.min(streams, 8) : streams, requests, clientCore));
          results.set(key, list);
        }
      }
    }
    const cell = (name: string, streams: number): { rate: number; failed: number } => {
      const list = results.get(`${name}|${streams}`) ?? [];
      return { rate: median(list.map((r) => r.perSecond)), failed: list.reduce((n, r) => n + r.failed, 0) };
    };
    const rows: string[][] = [['server', ...streamCounts.flatMap((s) => [`${s} stream${s === 1 ? '' : 's'}: req/s`, '× node:http2']), 'failed']];
    for (const [name] of servers) {
      const cells = streamCounts.map((s) => cell(name, s));
      const minimal = streamCounts.map((s) => cell('node:http2 (minimal)', s).rate);
      rows.push([
        name,
        ...cells.flatMap((c, i) => [c.rate.toFixed(0), `${(c.rate / (minimal[i] ?? 1)).toFixed(2)}×`]),
        String(cells.reduce((n, c) => n + c.failed, 0)),
      ]);
    }
    process.stdout.write(`${markdownTable(rows)}\n`);
    // chaos allows 8 streams at once: beside the minimal server held to the same 8, the code is compared, not the bound.
    const same = streamCounts.map((s) => `${s} stream${s === 1 ? '' : 's'}: ${(cell('chaos', s).rate / (cell(MINIMAL_8, s).rate || 1)).toFixed(2)}×`);
    process.stdout.write(`chaos ÷ ${MINIMAL_8}: ${same.join(', ')}\n`);
    process.stdout.write(`h2load -n ${requests} -c 1 -m STREAMS, median of ${runs} runs per cell; servers on core ${serverCore ?? 'any'}, h2load on core ${clientCore ?? 'any'}; load average ${loadAverage()}\n`);
  } finally {
    for (const [, child] of servers) await child.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.env.BENCH_HTTP2_ROLE === 'minimal') serveMinimal();
  else await main();
}
