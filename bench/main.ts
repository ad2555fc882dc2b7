// `make bench`: throughput of the chaos host beside a minimal node:net
// responder, then thousands of /drip streams held at once. Prints a table of
// results and the ratios the targets are stated in. Bounded: about 80 s with
// the defaults. Knobs (environment): BENCH_SECONDS (per measured run, 10),
// BENCH_ROUNDS (interleaved rounds, best kept, 2), BENCH_CONNECTIONS (10),
// BENCH_STREAMS (5000), BENCH_SKIP (throughput|streams), BENCH_CHAOS_MAIN (the
// chaos entry point to measure, dist-relative or absolute: to try a patch
// built elsewhere against the same baseline).
import { cpus } from 'node:os';
import net from 'node:net';
import { envInt, forkServer, MiB, type Child } from './lib.js';
import { runStreams, type StreamsResult } from './streams.js';
import { measure, warmUp, type LoadOptions, type Target, type ThroughputSample } from './throughput.js';

// /bytes is the endpoint the target is stated for; /drip with one chunk is the
// cheapest honest endpoint of the same size (1024 bytes, no timer: /slow?ms=0
// waits on a timer, which node never fires sooner than 1 ms).
const TARGETS = {
  minimal: '/',
  bytes: '/bytes?n=1024&mode=wrong-content-type',
  drip: '/drip?bytes=1024&chunk=4096',
} as const;
type TargetName = keyof typeof TARGETS;

const THROUGHPUT_TARGET = 0.8;
const RSS_TARGET_MIB_PER_1000 = 12;
/** "Completion within 1 % of the scheduled time": we count it met when 99 % of streams are. */
const ON_TIME_TARGET = 0.99;
/** A run whose server waited for a CPU longer than this share of it measured the neighbours too. */
const NOISY_WAIT = 0.15;

const load: LoadOptions = {
  connections: envInt('BENCH_CONNECTIONS', 10),
  durationSeconds: envInt('BENCH_SECONDS', 10),
  pipelining: 1,
};
const rounds = envInt('BENCH_ROUNDS', 2);
const streams = envInt('BENCH_STREAMS', 5000);
const skip = process.env.BENCH_SKIP ?? '';
const CHAOS_MAIN = process.env.BENCH_CHAOS_MAIN || 'services/chaos/main.js';

/** One response of `path`, byte for byte (head and Content-Length body), over a raw socket. */
function captureResponse(port: number, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 'latin1');
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const data = Buffer.concat(chunks);
      const end = data.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(data.toString('latin1', 0, Math.max(0, end)));
      if (end !== -1 && length && data.length >= end + 4 + Number(length[1])) {
        socket.destroy();
        resolve(data.subarray(0, end + 4 + Number(length[1])));
      }
    });
    socket.on('error', reject);
  });
}

function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

async function throughput(): Promise<Map<TargetName, ThroughputSample[]>> {
  const samples = new Map<TargetName, ThroughputSample[]>();
  let minimal: Child | undefined;
  let chaos: Child | undefined;
  try {
    // The per-IP limiter stays on (its cost is measured) with a limit no run reaches.
    chaos = await forkServer(CHAOS_MAIN, { CHAOS_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '1000000000' });
    // The baseline answers with the very bytes chaos /bytes sends, so the client
    // parses the same response from both and only the servers' work differs.
    const canned = await captureResponse(chaos.port, TARGETS.bytes);
    minimal = await forkServer('bench/minimal-responder.js', { MINIMAL_RESPONSE_B64: canned.toString('base64') });
    const targets: Record<TargetName, Target> = {
      minimal: { name: 'minimal', pid: minimal.pid, url: `http://127.0.0.1:${minimal.port}${TARGETS.minimal}` },
      bytes: { name: 'bytes', pid: chaos.pid, url: `http://127.0.0.1:${chaos.port}${TARGETS.bytes}` },
      drip: { name: 'drip', pid: chaos.pid, url: `http://127.0.0.1:${chaos.port}${TARGETS.drip}` },
    };
    const names = Object.keys(TARGETS) as TargetName[];
    for (const name of names) {
      log(`warming up ${name}`);
      await warmUp(targets[name], load, 2);
    }
    // Interleaved (A B C, A B C): a burst of load from a neighbour hits every target alike.
    for (let round = 1; round <= rounds; round++) {
      for (const name of names) {
        log(`round ${round}/${rounds}: ${name} for ${load.durationSeconds} s`);
        const sample = await measure(targets[name], load);
        log(
          `  ${Math.round(sample.requestsPerSecond)} req/s, ${sample.serverCpuMicrosPerRequest.toFixed(1)} µs server CPU/req` +
            `, server at ${(sample.serverCpuShare * 100).toFixed(0)} % of a core` +
            `, waiting for a CPU ${(sample.serverRunQueueShare * 100).toFixed(0)} % of the time`,
        );
        const list = samples.get(name) ?? [];
        list.push(sample);
        samples.set(name, list);
      }
    }
  } finally {
    await chaos?.stop();
    await minimal?.stop();
  }
  return samples;
}

/** The best run of a target: most requests per second. */
function best(list: readonly ThroughputSample[] | undefined): ThroughputSample | undefined {
  if (!list || list.length === 0) return undefined;
  return list.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
}

/** Least server CPU per request among the runs. */
function leanest(list: readonly ThroughputSample[] | undefined): number {
  if (!list || list.length === 0) return Number.NaN;
  return Math.min(...list.map((s) => s.serverCpuMicrosPerRequest));
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: readonly string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const [header, ...body] = rows;
  if (!header) return '';
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');

function report(samples: Map<TargetName, ThroughputSample[]> | undefined, drip: StreamsResult | undefined): void {
  const out: string[] = [];
  out.push(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}; chaos entry: ${CHAOS_MAIN}`);
  if (samples) {
    out.push(
      '',
      `Throughput: autocannon, ${load.connections} connections, pipelining ${load.pipelining}, ` +
        `${load.durationSeconds} s per run, best of ${rounds} interleaved rounds`,
      '',
    );
    const base = best(samples.get('minimal'));
    const baseCpu = leanest(samples.get('minimal'));
    const rows: string[][] = [
      // No latency column: autocannon 8 mis-times every response after a server-closed keep-alive
      // connection (the chaos host closes one per 1000 requests), see bench/README.md.
      ['target', 'path', 'req/s (best)', 'all runs req/s', 'server CPU µs/req (least)', 'req/s ÷ minimal', 'CPU/req: minimal ÷ this', 'server waited for CPU'],
    ];
    for (const name of Object.keys(TARGETS) as TargetName[]) {
      const list = samples.get(name);
      const top = best(list);
      if (!top) continue;
      const cpu = leanest(list);
      rows.push([
        name === 'minimal' ? 'minimal node:net' : `chaos ${name}`,
        TARGETS[name],
        String(Math.round(top.requestsPerSecond)),
        (list ?? []).map((s) => Math.round(s.requestsPerSecond)).join(' / '),
        cpu.toFixed(1),
        base ? `${(top.requestsPerSecond / base.requestsPerSecond).toFixed(2)}×` : '-',
        `${(baseCpu / cpu).toFixed(2)}×`,
        (list ?? []).map((s) => `${(s.serverRunQueueShare * 100).toFixed(0)} %`).join(' / '),
      ]);
      const errors = (list ?? []).reduce((n, s) => n + s.errors + s.non2xx, 0);
      if (errors > 0) out.push(`warning: ${name} had ${errors} errors or non-2xx responses`);
    }
    out.push(table(rows));
    const bytesTop = best(samples.get('bytes'));
    if (base && bytesTop) {
      const ratio = bytesTop.requestsPerSecond / base.requestsPerSecond;
      const perRound = (samples.get('bytes') ?? []).map((s, i) => {
        const m = samples.get('minimal')?.[i];
        return m ? `${(s.requestsPerSecond / m.requestsPerSecond).toFixed(2)}×` : '-';
      });
      out.push(
        '',
        `chaos /bytes ÷ minimal (best ÷ best): ${ratio.toFixed(2)}× (target ≥ ${THROUGHPUT_TARGET}×): ${verdict(ratio >= THROUGHPUT_TARGET)}` +
          `; round by round: ${perRound.join(', ')}`,
      );
      const noisy = [base, bytesTop].some((s) => s.serverRunQueueShare > NOISY_WAIT);
      if (noisy) {
        out.push(
          `note: a run behind this ratio waited for a CPU more than ${NOISY_WAIT * 100} % of the time ` +
            '(other processes on the machine): the ratio is noise-bound; rerun on a quieter machine.',
        );
      }
    }
  }
  if (drip) {
    const o = drip.options;
    const perThousandMiB = drip.rssPer1000Bytes / MiB;
    const mib = (b: number): string => (b / MiB).toFixed(1);
    out.push(
      '',
      `Streams: ${o.streams} × /drip?bytes=${o.bytes}&chunk=${o.chunk}&interval=${o.intervalMs} ` +
        `(scheduled ${drip.scheduledMs} ms first→last byte); all sockets connected first (${Math.round(drip.connectMs)} ms), ` +
        `then requests sent evenly over ${Math.round(drip.rampActualMs)} ms`,
      '',
      table([
        ['measure', 'value', 'target'],
        ['completed / failed', `${drip.completed} / ${drip.failed}${drip.failed ? ` ${JSON.stringify(drip.failures)}` : ''}`, `${o.streams} / 0`],
        ['most streams in flight at once', String(drip.maxInFlight), String(o.streams)],
        ['server RSS idle → connected → peak', `${mib(drip.rssBeforeBytes)} → ${mib(drip.rssConnectedBytes)} → ${mib(drip.rssPeakBytes)} MiB`, ''],
        ['RSS per 1000 streams (peak − idle)', `${perThousandMiB.toFixed(2)} MiB`, `≤ ${RSS_TARGET_MIB_PER_1000} MiB: ${verdict(perThousandMiB <= RSS_TARGET_MIB_PER_1000)}`],
        [
          'on time (within 1 % of schedule)',
          `${(drip.onTimeFraction * 100).toFixed(1)} %`,
          `within ±${(drip.scheduledMs * 0.01).toFixed(0)} ms: ${verdict(drip.onTimeFraction >= ON_TIME_TARGET)} (≥ ${ON_TIME_TARGET * 100} %)`,
        ],
        [
          'lateness p1 / p50 / p99 / max',
          `${drip.latenessP01Ms.toFixed(1)} / ${drip.latenessP50Ms.toFixed(1)} / ${drip.latenessP99Ms.toFixed(1)} / ${drip.latenessMaxMs.toFixed(1)} ms`,
          'negative: finished early',
        ],
        ['time to first byte p50 / p99', `${drip.firstByteP50Ms.toFixed(1)} / ${drip.firstByteP99Ms.toFixed(1)} ms`, ''],
        [
          'client event-loop delay p99 / max',
          `${drip.clientLoopDelayP99Ms.toFixed(1)} / ${drip.clientLoopDelayMaxMs.toFixed(1)} ms`,
          'client-side noise in the timings',
        ],
        [
          'waiting for a CPU: server / client',
          `${(drip.serverRunQueueShare * 100).toFixed(0)} % / ${(drip.clientRunQueueShare * 100).toFixed(0)} % of the run`,
          'machine noise (other processes)',
        ],
      ]),
    );
  }
  if (drip && drip.serverRunQueueShare > NOISY_WAIT) {
    out.push(
      `note: the server waited for a CPU ${(drip.serverRunQueueShare * 100).toFixed(0)} % of the streams run ` +
        '(other processes on the machine): its timers fired late for that reason; rerun on a quieter machine.',
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

const samples = skip.includes('throughput') ? undefined : await throughput();
let drip: StreamsResult | undefined;
if (!skip.includes('streams')) {
  log(`streams: ${streams} × /drip`);
  drip = await runStreams(CHAOS_MAIN, { streams, bytes: 100, chunk: 10, intervalMs: 200, rampMs: 1000 });
}
report(samples, drip);
