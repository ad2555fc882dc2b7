// One connection's life on the server, in CPU (issue 31): BENCH_CONN_COUNT
// (8000) connections each opening, asking `GET /status/200` once and closing
// (the C client, connect per request, BENCH_CONN_RATE a second), on chaos as
// users run it, on chaos's transport floor (bench/chaos-floor.ts: Connection,
// parser, Wire, accept path, a canned answer) and on the node:net floor
// (bench/bare-drip.ts: a bare socket). The three are up for the whole run and
// visited in interleaved rounds (A B C, A B C …) so a neighbour's burst lands
// on all of them alike; each figure is the median of BENCH_ROUNDS (3) rounds,
// and ratios are median ÷ median. The figure is the server's CPU (user and
// system, /proc/<pid>/stat) per connection: less sensitive to a busy machine
// than latency, and what 19,000 held /drip streams pay for their accept and
// close (bench/scale.ts). cpuProbeMs says how slowed the server's core was.
// Servers on core 0, client on core 1.
// BENCH_BEFORE_DIST=<another build's dist>: that build's chaos and transport
// floor join the rounds too (a change's before and after in one run).
// Run: node dist/bench/connections.js after `make held-client`.
import path from 'node:path';
import { cpuProbeMs, envInt, forkServer, heldChaosEnv, loadAverage, markdownTable, median, NOISY_SHARE, Quietness, sleep, userSystemSeconds, type Child } from './lib.js';
import { HELD_CLIENT_BINARY, heldClientFromEnv, runClient } from './streams.js';

const COUNT = envInt('BENCH_CONN_COUNT', 8000);
const RATE = envInt('BENCH_CONN_RATE', 2000);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const SERVER_CORE = envInt('BENCH_SERVER_CORE', 0, 0);
const CLIENT_CORE = envInt('BENCH_CLIENT_CORE', 1, 0);
/** Node flags for every server beyond its own (a CPU profile: `--cpu-prof --cpu-prof-dir=…`), space-separated. */
const EXTRA_NODE_ARGS = (process.env.BENCH_NODE_EXTRA ?? '').split(' ').filter(Boolean);
const PATH = '/status/200';
/** Sockets per loopback source address (bench/scale.ts says why). */
const PORTS_PER_SOURCE = 2500;
/** The same small answer from both floors (bare-drip.ts's own for any path but /drip). */
const STATUS_RESPONSE = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';

const client = heldClientFromEnv();
if (client.kind !== 'c') throw new Error(`bench/connections.ts needs the C client (${HELD_CLIENT_BINARY}); make held-client builds it`);

interface Target {
  readonly name: string;
  readonly module: string;
  readonly env: Record<string, string>;
}

const TARGETS: Target[] = [
  // As users run it (limiter on in memory, metrics on), per-client caps off: every socket comes from the loopback.
  { name: 'chaos', module: 'services/chaos/main.js', env: { ...(await heldChaosEnv()), MAX_CONNECTIONS: String(COUNT + 1000) } },
  { name: 'chaos transport floor', module: 'bench/chaos-floor.js', env: { MINIMAL_RESPONSE_B64: Buffer.from(STATUS_RESPONSE, 'latin1').toString('base64') } },
  { name: 'node:net floor', module: 'bench/bare-drip.js', env: {} },
];
const BEFORE_DIST = process.env.BENCH_BEFORE_DIST;
if (BEFORE_DIST) {
  const [chaos, floor] = TARGETS as [Target, Target];
  TARGETS.push(
    // Its own metrics port.
    { ...chaos, name: 'chaos (before)', module: path.resolve(BEFORE_DIST, chaos.module), env: { ...chaos.env, METRICS_PORT: (await heldChaosEnv()).METRICS_PORT ?? '0' } },
    { ...floor, name: 'chaos transport floor (before)', module: path.resolve(BEFORE_DIST, floor.module) },
  );
}

interface Round {
  readonly userUs: number;
  readonly systemUs: number;
  readonly failed: number;
}

/**
 * The order of round `r`: with a build before, each of chaos and its floor
 * right beside the same server of that build, which goes first every other
 * round, so a core that changes speed within a round lands on both alike.
 */
function visitOrder(r: number): number[] {
  if (!BEFORE_DIST) return [0, 1, 2];
  return r % 2 === 0 ? [0, 3, 1, 4, 2] : [3, 0, 4, 1, 2];
}

/** The median of each round's `after ÷ before` (rounds paired as they ran). */
function pairedRatio(after: readonly Round[], before: readonly Round[]): number {
  const cpu = (x: Round): number => x.userUs + x.systemUs;
  return median(after.map((x, r) => cpu(x) / cpu(before[r] ?? x)));
}

async function oneRound(server: Child): Promise<Round> {
  const [user0, system0] = userSystemSeconds(server.pid);
  const run = await runClient(
    { port: server.port, streams: COUNT, path: PATH, rampMs: (COUNT / RATE) * 1000, timeoutMs: 30_000, connectPerRequest: true, sources: Math.ceil(COUNT / PORTS_PER_SOURCE) },
    undefined,
    CLIENT_CORE,
    client,
  );
  // The last closes are handled after the client's result: let the server see them.
  await sleep(300);
  const [user1, system1] = userSystemSeconds(server.pid);
  return { userUs: ((user1 - user0) * 1e6) / COUNT, systemUs: ((system1 - system0) * 1e6) / COUNT, failed: run.failed };
}

function log(line: string): void {
  process.stderr.write(`bench connections: ${line}\n`);
}

async function main(): Promise<void> {
  const servers: Child[] = [];
  try {
    for (const target of TARGETS) servers.push(await forkServer(target.module, target.env, { core: SERVER_CORE, nodeArgs: EXTRA_NODE_ARGS }));
    // Warm-up: the accept path compiled on each before anything is counted.
    for (const server of servers)
      await runClient({ port: server.port, streams: 2000, path: PATH, rampMs: 1000, timeoutMs: 15_000, connectPerRequest: true, sources: 1 }, undefined, CLIENT_CORE, client);
    const rounds: Round[][] = TARGETS.map(() => []);
    const probes: number[] = [cpuProbeMs(SERVER_CORE)];
    const quiet = new Quietness(() => servers.map((s) => s.pid));
    quiet.start();
    for (let r = 0; r < ROUNDS; r++) {
      for (const i of visitOrder(r)) {
        const server = servers[i] as Child;
        const round = await oneRound(server);
        rounds[i]?.push(round);
        log(`round ${r + 1}: ${TARGETS[i]?.name} ${(round.userUs + round.systemUs).toFixed(0)} µs per connection (user ${round.userUs.toFixed(0)}, system ${round.systemUs.toFixed(0)}), failed ${round.failed}`);
      }
      probes.push(cpuProbeMs(SERVER_CORE));
    }
    const others = quiet.share();
    const totals = rounds.map((rs) => median(rs.map((x) => x.userUs + x.systemUs)));
    const node = totals[2] ?? 1;
    const floor = totals[1] ?? 1;
    const rows: string[][] = [['server', 'CPU µs per connection (rounds)', 'user / system µs', '÷ node:net floor', '÷ transport floor', 'failed']];
    if (BEFORE_DIST) rows[0]?.push('÷ before: median of the rounds\' ratios (of the medians)');
    for (const [i, target] of TARGETS.entries()) {
      const rs = rounds[i] ?? [];
      const total = totals[i] ?? 0;
      rows.push([
        target.name,
        `${total.toFixed(0)} (${rs.map((x) => (x.userUs + x.systemUs).toFixed(0)).join(', ')})`,
        `${median(rs.map((x) => x.userUs)).toFixed(0)} / ${median(rs.map((x) => x.systemUs)).toFixed(0)}`,
        `${(total / node).toFixed(2)}×`,
        `${(total / floor).toFixed(2)}×`,
        String(rs.reduce((sum, x) => sum + x.failed, 0)),
      ]);
      // chaos and its floor against the same server of the build before (targets 3 and 4).
      if (BEFORE_DIST) rows[rows.length - 1]?.push(i < 2 ? `${pairedRatio(rs, rounds[i + 3] ?? []).toFixed(2)}× (${(total / (totals[i + 3] ?? 1)).toFixed(2)}×)` : '');
    }
    const out = [
      '',
      `One connection's life (connect, GET ${PATH}, close): ${COUNT} connections a round at ${RATE}/s, ${ROUNDS} interleaved rounds, servers on core ${SERVER_CORE}, the C client on core ${CLIENT_CORE}; medians.`,
      '',
      markdownTable(rows),
      '',
      `- cpuProbeMs on core ${SERVER_CORE} (about 60 on an idle fast core): ${probes.map((p) => p.toFixed(0)).join(', ')}`,
      `- others took ${(others * 100).toFixed(0)} % of the machine${others > NOISY_SHARE ? ' (noisy)' : ''}; load average (1/5/15 min) at the end: ${loadAverage()}`,
      '',
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    // The floors exit when their channel closes, which lets a --cpu-prof write its profile (SIGTERM would not); stop() for the rest.
    for (const server of servers) if (server.process.connected) server.process.disconnect();
    await sleep(1000);
    await Promise.all(servers.map((s) => s.stop()));
  }
}

await main();
