// Replicas sharing one real Redis (DESIGN §7) as real processes: the general
// limit, the /infinite limit, a /retry-mismatch record and the AI budget are
// each one across two processes; limits are per host. Then Redis killed
// (SIGKILL, restart) and stopped (SIGSTOP, SIGCONT) while requests flow to a
// running chaos process: no 5xx, limits fail open, no request waits past
// the command timeout by much, recovery, one warn line per episode.
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { freePort, spawnNode, type Spawned } from '../../helpers/process.js';
import { startRedis } from '../../helpers/redis.js';
import { retryStoreKey } from '../../../shared/content/fault-injection/index.js';
import { startFakeModel } from '../../helpers/fake-model.js';

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly reason?: string;
}

function logLines(svc: Spawned): LogLine[] {
  return svc
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Spawns a service with Redis and waits until it listens and says Redis is connected. */
async function spawnWithRedis(test: Test, host: 'chaos' | 'control', env: Record<string, string>): Promise<{ port: number; svc: Spawned }> {
  const port = await freePort();
  const portVariable = host === 'chaos' ? 'CHAOS_PORT' : 'CONTROL_PORT';
  const svc = spawnNode(`services/${host}/main.js`, { LOG_LEVEL: 'info', [portVariable]: String(port), ...env });
  test.teardown(() => svc.child.kill('SIGKILL'));
  await waitFor(() => logLines(svc).some((l) => l.msg === 'listening'), `${host} listening (${svc.stderr()})`);
  await waitFor(() => logLines(svc).some((l) => /^Redis store connected/.test(l.msg)), `${host} connected to Redis`);
  return { port, svc };
}

async function ask(port: number, path: string): Promise<{ head: ParsedResponse; body: string; ms: number }> {
  const r = await rawExchange(port, get(path), { until: completeByLength, timeoutMs: 5000 });
  const head = parseHead(r.data);
  return { head, body: head.rest.subarray(0, Number(head.header('content-length') ?? 0)).toString('utf8'), ms: r.elapsedMs };
}

const redis = await startRedis(t);

t.test('two chaos processes, one Redis: one general limit, one retry record, one AI budget; limits per host', async (t) => {
  // A granted budget shows as `invalid-json`, a spent one as `budget-exhausted`.
  const model = await startFakeModel(t);
  const env = {
    REDIS_URL: redis.url,
    REDIS_PREFIX: 'procs-a:',
    RATE_LIMIT_GENERAL: '8',
    AI_BASE_URL: model.baseUrl,
    AI_MODEL: 'test-model',
    AI_DAILY_BUDGET: '1',
  };
  const [a, b] = await Promise.all([spawnWithRedis(t, 'chaos', env), spawnWithRedis(t, 'chaos', env)]);
  const id = `cross-${Date.now()}`;

  // 1, 2: the retry record is one.
  const first = await ask(a.port, `/retry-mismatch?id=${id}`);
  const second = await ask(b.port, `/retry-mismatch?id=${id}`);
  t.equal(first.head.header('x-chaos-retry-version'), '1', 'version 1 from A');
  t.equal(second.head.header('x-chaos-retry-version'), '2', 'version 2 from B: the record is shared');
  t.equal(second.head.header('x-chaos-retry-replayed'), 'true');

  // 3, 4: the AI budget is one (AI_DAILY_BUDGET=1).
  const granted = await ask(a.port, '/semantic-drift?ai=true');
  const spent = await ask(b.port, '/semantic-drift?ai=true');
  t.equal(granted.head.status, 200);
  t.equal(granted.head.header('x-chaos-ai-fallback-reason'), 'invalid-json', 'A was granted the one call (the model answered nonsense)');
  t.equal(spent.head.status, 200, 'never a 5xx');
  t.equal(spent.head.header('x-chaos-ai-fallback-reason'), 'budget-exhausted', 'B finds the budget spent');
  t.equal(model.calls(), 1, 'one model call across both processes');

  // 5 to 8 served, alternating; the 9th (on either) is refused: one general limit of 8.
  for (let i = 5; i <= 8; i++) {
    const r = await ask(i % 2 ? a.port : b.port, '/status/200');
    t.equal(r.head.status, 200, `request ${i} of 8`);
  }
  const refusedA = await ask(a.port, '/status/200');
  const refusedB = await ask(b.port, '/status/200');
  for (const r of [refusedA, refusedB]) {
    t.equal(r.head.status, 429);
    t.equal(r.head.header('ratelimit-policy'), '"general";q=8;w=60');
  }

  // Another host on the same Redis gives the client its own budget.
  const control = await spawnWithRedis(t, 'control', { REDIS_URL: redis.url, REDIS_PREFIX: 'procs-a:', RATE_LIMIT_GENERAL: '8' });
  t.equal((await ask(control.port, '/status/200')).head.status, 200, 'control: its own 8 per minute');

  const keys = (await redis.command('KEYS', 'procs-a:rate:*')).split('\r\n').filter((l) => l.startsWith('procs-a:'));
  t.same(keys.sort(), ['procs-a:rate:{chaos:127.0.0.1}:chaos:general:127.0.0.1', 'procs-a:rate:{control:127.0.0.1}:control:general:127.0.0.1'], 'one counter per host and client');
});

t.test('two control processes: one /infinite limit, the general policy untouched', async (t) => {
  const env = { REDIS_URL: redis.url, REDIS_PREFIX: 'procs-b:', RATE_LIMIT_INFINITE: '3', RATE_LIMIT_GENERAL: '100' };
  const [a, b] = await Promise.all([spawnWithRedis(t, 'control', env), spawnWithRedis(t, 'control', env)]);
  const codes: number[] = [];
  for (let i = 0; i < 4; i++) codes.push((await ask(i % 2 ? b.port : a.port, `/infinite/json/users/shared-${i}`)).head.status);
  t.same(codes, [200, 200, 200, 429], 'three across both, the fourth refused');
  const refused = await ask(a.port, '/infinite/json/users/shared-9');
  t.equal(refused.head.header('ratelimit-policy'), '"infinite";q=3;w=60');
  const general = await ask(b.port, '/bytes');
  t.equal(general.head.status, 200, 'the rest of the host is served');
  const keys = (await redis.command('KEYS', 'procs-b:rate:*')).split('\r\n').filter((l) => l.startsWith('procs-b:'));
  t.same(keys.sort(), ['procs-b:rate:{control:127.0.0.1}:control:general:127.0.0.1', 'procs-b:rate:{control:127.0.0.1}:control:infinite:127.0.0.1'], 'both policies of one host, shared, in one hash-tag group (one Cluster slot)');
});

t.test('Redis killed and restarted, then stopped and continued, under load: no 5xx, no stall, one warn per episode', async (t) => {
  const server = await startRedis(t);
  const { port, svc } = await spawnWithRedis(t, 'chaos', { REDIS_URL: server.url, RATE_LIMIT_GENERAL: '1000000' });
  const statuses = new Map<number, number>();
  let slowest = 0;
  let running = true;
  const workers = Array.from({ length: 4 }, async () => {
    while (running) {
      const r = await ask(port, '/status/200');
      statuses.set(r.head.status, (statuses.get(r.head.status) ?? 0) + 1);
      slowest = Math.max(slowest, r.ms);
      await sleep(2);
    }
  });
  const warns = (): LogLine[] => logLines(svc).filter((l) => l.level >= 40);
  const backs = (): LogLine[] => logLines(svc).filter((l) => /^Redis is back/.test(l.msg));
  try {
    await sleep(300);
    await server.kill();
    await waitFor(() => warns().length === 1, 'the first warn line', 5000);
    await sleep(800);
    await server.restart();
    await waitFor(() => backs().length === 1, 'Redis back after the restart', 10_000);
    await sleep(300);
    server.pause();
    await waitFor(() => warns().length === 2, 'the second warn line', 5000);
    await sleep(800);
    server.resume();
    await waitFor(() => backs().length === 2, 'Redis back after SIGCONT', 10_000);
    await sleep(300);
  } finally {
    running = false;
    await Promise.all(workers);
  }
  const served = [...statuses.values()].reduce((a, b) => a + b, 0);
  t.ok(served > 50, `${served} requests during the run`);
  t.same([...statuses.keys()], [200], 'every answer was 200: no 5xx, and the limit failed open');
  t.ok(slowest < 1000, `slowest request ${slowest.toFixed(0)} ms (command timeout 100 ms)`);
  t.same(
    warns().map((l) => l.msg),
    ['Redis unavailable: serving from local memory (limits per process) until it is back', 'Redis unavailable: serving from local memory (limits per process) until it is back'],
    'exactly one warn line per episode',
  );
  t.equal(warns()[1]?.reason, 'timeout', 'a stopped Redis is a timeout');
  t.equal(backs().length, 2, 'and one line when each ended');
  // Shared again: a record written now is in Redis.
  const id = `after-${Date.now()}`;
  await ask(port, `/retry-mismatch?id=${id}`);
  t.match(await server.command('EXISTS', `chaos:window:{${retryStoreKey(id)}}`), /^:1/, 'writes reach Redis again');
});
