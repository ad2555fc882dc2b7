// The front door's cost (issue 10): the same cheap endpoint direct and through
// HAProxy in one run, for the chaos host (mode tcp) and control (mode http),
// then 5000 held /drip streams through HAProxy. The replicas and the direct
// processes are pinned to core 0 and wrk to core 1; HAProxy runs beside wrk
// (BENCH_PROXY_CORE=1, the default: the replica keeps its core to itself, as
// behind a proxy on its own machine) or beside the replica (BENCH_PROXY_CORE=0).
// Beside req/s, each run reports the server's CPU per request (the replica's, and
// HAProxy's apart): HAProxy shares wrk's core here, so req/s through it also
// measures that core; the replica's CPU per request direct ÷ via is its own
// share of the front door's cost. The held streams run with the replicas on
// core 0 and HAProxy on BENCH_PROXY_CORE too, beside the C client (BENCH_HELD_CLIENT).
// Run after `make build`: node dist/bench/front-door.js (about 2 minutes).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cpuSeconds, DIST, envInt, forkServer, freePort, loadAverage, median, MiB, pin, quantile, rssBytes, sleep, stopChild } from './lib.js';
import { heldClientFromEnv, runClient } from './streams.js';
import { wrk } from './wrk.js';

const SECONDS = envInt('BENCH_SECONDS', 8);
const ROUNDS = envInt('BENCH_ROUNDS', 2);
const STREAMS = envInt('BENCH_STREAMS', 5000);
/** The held streams' client: the C one when built (its own loop delay is far below the 1 % judged; the node client's was 12–35 ms at 5000). */
const heldClient = heldClientFromEnv();
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const PROXY_CORE = envInt('BENCH_PROXY_CORE', 1, 0);
// Not a holding endpoint: those take a held-response slot from the store (Redis behind the proxy, memory direct).
const PATH = '/status/200';

function childrenOf(pid: number): number[] {
  return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

interface Stack {
  readonly front: number;
  readonly haproxy: number;
  readonly replicas: (service: string) => number[];
  stop(): Promise<void>;
}

/** The full stack under its supervisor; `core`: every process starts on that core (the throughput runs re-pin the replicas). */
async function startStack(env: Record<string, string>, core?: number): Promise<Stack> {
  const front = await freePort();
  // Started on HAProxy's core: HAProxy starts one thread per core it may use,
  // and two threads pinned later to one core would only take turns.
  const main = [process.execPath, path.join(DIST, 'services/main.js')];
  const [command, ...args] = core === undefined ? main : ['taskset', '-c', String(core), ...main];
  const supervisor = spawn(command as string, args, {
    env: { ...process.env, STACK: 'full', FRONT_PORT: String(front), LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  supervisor.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 60_000;
  while (!out.includes('Ctrl-C stops everything')) {
    if (supervisor.exitCode !== null || Date.now() > deadline) throw new Error(`stack did not start:\n${out.slice(-2000)}`);
    await sleep(100);
  }
  const pid = supervisor.pid as number;
  const all = (): number[] => childrenOf(pid);
  const haproxy = all().find((p) => commandOf(p).startsWith('haproxy')) as number;
  return {
    front,
    haproxy,
    replicas: (service) => all().filter((p) => commandOf(p).includes(`services/${service}/main.js`)),
    stop: () => stopChild(supervisor, 10_000),
  };
}

interface FrontRun {
  readonly rps: number;
  readonly p99Ms: number;
  readonly errors: number;
  /** CPU µs per request of the replica (or the direct server), and of HAProxy (NaN when not on the path). */
  readonly serverCpu: number;
  readonly proxyCpu: number;
}

/** One wrk run on core 1 with this benchmark's connections: req/s, p99, errors, and the CPU per request of `server` and `proxy`. */
function wrkRun(url: string, host: string | undefined, seconds = SECONDS, server?: number, proxy?: number): FrontRun {
  const cpu = (pid: number | undefined): number => (pid === undefined ? Number.NaN : cpuSeconds(pid));
  const before = [cpu(server), cpu(proxy)];
  const r = wrk({ url, host, connections: CONNECTIONS, seconds, core: 1 });
  const perRequest = (pid: number | undefined, i: number): number => ((cpu(pid) - (before[i] as number)) * 1e6) / r.requests;
  return { rps: r.requestsPerSecond, p99Ms: r.p99Ms, errors: r.non2xx + r.socketErrors, serverCpu: perRequest(server, 0), proxyCpu: perRequest(proxy, 1) };
}

async function throughput(): Promise<void> {
  const stack = await startStack({ REPLICAS: '1', MAX_CONNECTIONS_PER_IP: '0' }, PROXY_CORE);
  const directChaos = await forkServer('services/chaos/main.js', { CHAOS_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '0' });
  const directControl = await forkServer('services/control/main.js', { CONTROL_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '0' });
  try {
    // BENCH_PROXY_CORE: where HAProxy runs, 1 (beside wrk, the default: the replica keeps its core, as with a proxy on its own machine) or 0 (beside the replica).
    for (const p of [...stack.replicas('chaos'), ...stack.replicas('control'), ...stack.replicas('bots'), directChaos.pid, directControl.pid]) pin(p, 0);
    pin(stack.haproxy, PROXY_CORE);
    const targets = [
      { name: 'chaos direct', url: `http://127.0.0.1:${directChaos.port}${PATH}`, host: undefined, server: directChaos.pid, proxy: undefined },
      { name: 'chaos via HAProxy (tcp)', url: `http://127.0.0.1:${stack.front}${PATH}`, host: `chaos.localhost:${stack.front}`, server: stack.replicas('chaos')[0], proxy: stack.haproxy },
      { name: 'control direct', url: `http://127.0.0.1:${directControl.port}${PATH}`, host: undefined, server: directControl.pid, proxy: undefined },
      { name: 'control via HAProxy (http)', url: `http://127.0.0.1:${stack.front}${PATH}`, host: `control.localhost:${stack.front}`, server: stack.replicas('control')[0], proxy: stack.haproxy },
    ];
    for (const t of targets) wrkRun(t.url, t.host, 2); // warm-up
    const runs = new Map<string, FrontRun[]>(targets.map((t) => [t.name, []]));
    const loads: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) runs.get(t.name)?.push(wrkRun(t.url, t.host, SECONDS, t.server, t.proxy));
      loads.push(loadAverage());
    }
    const best = (name: string): number => Math.max(...(runs.get(name) ?? []).map((r) => r.rps));
    console.log(`\nThroughput, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} interleaved rounds; replicas and direct servers on core 0, HAProxy on core ${PROXY_CORE}, wrk on core 1`);
    const serverCpu = (name: string): number => median((runs.get(name) ?? []).map((r) => r.serverCpu));
    console.log('| target | path | req/s (best) | all runs | p99 (best run) | errors | via ÷ direct | replica CPU µs/req (median) | replica CPU direct ÷ via | HAProxy CPU µs/req (median) |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const t of targets) {
      const r = runs.get(t.name) ?? [];
      const top = r.reduce((a, b) => (b.rps > a.rps ? b : a));
      const direct = t.name.startsWith('chaos') ? 'chaos direct' : 'control direct';
      const via = t.name.includes('via');
      const ratio = via ? `**${(best(t.name) / best(direct)).toFixed(2)}×**` : '1.00×';
      const cpuRatio = via ? `${(serverCpu(direct) / serverCpu(t.name)).toFixed(2)}×` : '1.00×';
      const proxyCpu = via ? median(r.map((x) => x.proxyCpu)).toFixed(1) : '';
      console.log(
        `| ${t.name} | ${PATH} | ${Math.round(best(t.name))} | ${r.map((x) => Math.round(x.rps)).join(' / ')} | ${top.p99Ms.toFixed(2)} ms | ${r.reduce((n, x) => n + x.errors, 0)} | ${ratio} | ` +
          `${serverCpu(t.name).toFixed(1)} | ${cpuRatio} | ${proxyCpu} |`,
      );
    }
    console.log(`load average (1/5/15 min) after each round: ${loads.join('; ')}`);
  } finally {
    await Promise.all([directChaos.stop(), directControl.stop(), stack.stop()]);
  }
}

async function streams(): Promise<void> {
  const stack = await startStack({ REPLICAS: String(envInt('BENCH_REPLICAS', 2)), MAX_CONNECTIONS_PER_IP: '0', MAX_HELD_PER_IP: '0' });
  try {
    const chaos = stack.replicas('chaos');
    // The replicas on core 0, the client on core 1, HAProxy on BENCH_PROXY_CORE
    // as in the throughput part (1 by default: beside the client, which is the C
    // client when built, one thread on epoll that leaves most of its core idle).
    // Each is pinned: left to the scheduler, processes hop between the cores and
    // the streams' schedule measures that.
    for (const p of chaos) pin(p, 0);
    pin(stack.haproxy, PROXY_CORE);
    const rss = (): { haproxy: number; replicas: number } => ({ haproxy: rssBytes(stack.haproxy), replicas: chaos.reduce((n, p) => n + rssBytes(p), 0) });
    const host = `chaos.localhost:${stack.front}`;
    const bytes = 100;
    const chunk = 10;
    const interval = 200;
    const scheduledMs = (Math.ceil(bytes / chunk) - 1) * interval;
    const query = `/drip?bytes=${bytes}&chunk=${chunk}&interval=${interval}`;
    await runClient({ port: stack.front, host, streams: 50, path: query.replace(/interval=\d+/, 'interval=10'), rampMs: 50, timeoutMs: 5_000 });
    await sleep(500);
    const before = rss();
    const peak = { ...before };
    const sampler = setInterval(() => {
      const now = rss();
      peak.haproxy = Math.max(peak.haproxy, now.haproxy);
      peak.replicas = Math.max(peak.replicas, now.replicas);
    }, 20);
    const replicasCpu = (): number => chaos.reduce((n, p) => n + cpuSeconds(p), 0);
    const cpuBefore = { haproxy: cpuSeconds(stack.haproxy), replicas: replicasCpu(), at: performance.now() };
    const client = await runClient({ port: stack.front, host, streams: STREAMS, path: query, rampMs: 1000, timeoutMs: scheduledMs + 15_000 }, undefined, 1, heldClient).finally(() =>
      clearInterval(sampler),
    );
    const lateness = client.timings.map((t) => t.spanMs - scheduledMs).sort((a, b) => a - b);
    const onTime = lateness.filter((l) => Math.abs(l) <= scheduledMs * 0.01).length;
    const per1000 = (a: number, b: number): string => (((b - a) * 1000) / Math.max(1, client.maxInFlight) / MiB).toFixed(2);
    console.log(
      `\n${STREAMS} /drip streams through HAProxy (${query}, ${scheduledMs} ms first byte to last), ${chaos.length} chaos replica(s) on core 0, HAProxy on core ${PROXY_CORE}, ` +
        `the ${heldClient.kind === 'c' ? 'C client (bench/held-client.c)' : 'node client (bench/drip-client.ts)'} on core 1`,
    );
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| completed / failed | ${client.timings.length} / ${client.failed} ${client.failed ? JSON.stringify(client.failures) : ''} |`);
    console.log(`| most streams in flight at once | ${client.maxInFlight} |`);
    console.log(`| HAProxy RSS idle → peak | ${(before.haproxy / MiB).toFixed(1)} → ${(peak.haproxy / MiB).toFixed(1)} MiB: **${per1000(before.haproxy, peak.haproxy)} MiB per 1000 streams** |`);
    console.log(`| replicas' RSS (sum of ${chaos.length}) idle → peak | ${(before.replicas / MiB).toFixed(1)} → ${(peak.replicas / MiB).toFixed(1)} MiB: **${per1000(before.replicas, peak.replicas)} MiB per 1000 streams** |`);
    const runSeconds = (performance.now() - cpuBefore.at) / 1000;
    const busy = (now: number, before: number): string => `${(((now - before) / runSeconds) * 100).toFixed(0)} % of a core`;
    console.log(
      `| CPU over the run (${runSeconds.toFixed(1)} s) | HAProxy ${busy(cpuSeconds(stack.haproxy), cpuBefore.haproxy)}, the replicas ${busy(replicasCpu(), cpuBefore.replicas)} |`,
    );
    console.log(`| the client's own loop delay p99 / max | ${client.clientLoopDelayP99Ms.toFixed(2)} / ${client.clientLoopDelayMaxMs.toFixed(2)} ms |`);
    console.log(`| on time (within 1 % of schedule) | **${((onTime / STREAMS) * 100).toFixed(1)} %** |`);
    const firstByte = client.timings.map((t) => t.firstByteMs).sort((a, b) => a - b);
    console.log(`| request written → first byte p50 / p99 / max (a late first byte shortens the span: a negative lateness) | ${[0.5, 0.99].map((q) => quantile(firstByte, q).toFixed(1)).join(' / ')} / ${(firstByte.at(-1) ?? Number.NaN).toFixed(1)} ms |`);
    console.log(`| lateness p1 / p50 / p99 / max | ${[0.01, 0.5, 0.99].map((q) => quantile(lateness, q).toFixed(1)).join(' / ')} / ${(lateness.at(-1) ?? Number.NaN).toFixed(1)} ms |`);
    console.log(`| load average (1/5/15 min) at the end | ${loadAverage()} |`);
  } finally {
    await stack.stop();
  }
}

const skip = process.env.BENCH_SKIP ?? '';
if (!skip.includes('throughput')) await throughput();
if (!skip.includes('streams')) await streams();
