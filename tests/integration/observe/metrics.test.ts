// Metrics on the admin port (DESIGN §10), scraped from real processes after
// known traffic: exact counter deltas with the right labels for a chaos lie,
// a control twin, a bots file, a real 429, a parameter error and a malformed
// request; /healthz and /readyz; fallbacks counted through a Redis outage.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { METRIC_NAMES } from '../../../shared/runtime/metrics.js';
import { freePort, spawnNode, waitForPort, type Spawned } from '../../helpers/process.js';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startRedis } from '../../helpers/redis.js';

type Samples = Map<string, number>;

/** `name{labels}` → value, for every sample line of an exposition. */
function parse(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

async function exposition(adminPort: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
}

async function scrape(adminPort: number): Promise<Samples> {
  return parse(await exposition(adminPort));
}

function delta(before: Samples, after: Samples, key: string): number {
  return (after.get(key) ?? 0) - (before.get(key) ?? 0);
}

async function service(t: { teardown(fn: () => unknown): void }, name: 'chaos' | 'control' | 'bots', env: Record<string, string> = {}): Promise<{ port: number; admin: number; process: Spawned }> {
  const [port, admin] = [await freePort(), await freePort()];
  const variable = { chaos: 'CHAOS_PORT', control: 'CONTROL_PORT', bots: 'BOTS_PORT' }[name];
  const process = spawnNode(`services/${name}/main.js`, { [variable]: String(port), METRICS_PORT: String(admin), RATE_LIMIT_GENERAL: '4', ...env });
  t.teardown(() => process.child.kill('SIGKILL'));
  await waitForPort(port, 60_000);
  await waitForPort(admin, 60_000);
  return { port, admin, process };
}

const status = async (port: number, path: string): Promise<number> => parseHead((await rawExchange(port, get(path, { Connection: 'close' }))).data).status;

t.test('chaos: a lie, a parameter error, a malformed request and a real 429, counted exactly', async (t) => {
  const chaos = await service(t, 'chaos', { RATE_LIMIT_GENERAL: '3' });
  const text = await exposition(chaos.admin);
  for (const name of METRIC_NAMES) t.match(text, `# TYPE ${name} `, `${name} is exposed`);
  const before = parse(text);
  t.ok(before.has('process_cpu_seconds_total') && before.has('nodejs_eventloop_lag_seconds'), "prom-client's default metrics");

  t.equal(await status(chaos.port, '/truncate?at=5'), 200);
  t.equal(await status(chaos.port, '/json?mode=missing-brace'), 200);
  t.equal(await status(chaos.port, '/drip?bytes=lots'), 400);
  const malformed = await rawExchange(chaos.port, 'GARBAGE\r\n\r\n');
  t.equal(parseHead(malformed.data).status, 400);
  t.equal(await status(chaos.port, '/truncate?at=5'), 429, 'the fourth counted request of the minute is a real 429 (a malformed request is not counted)');
  const after = await scrape(chaos.admin);

  const responses = (category: string, endpoint: string, mode: string, code: number): string =>
    `chaos_responses_total{host="chaos",category="${category}",endpoint="${endpoint}",mode="${mode}",code="${code}"}`;
  t.equal(delta(before, after, responses('payload', '/truncate', '', 200)), 1, 'the lie');
  t.equal(delta(before, after, responses('payload', '/json', 'missing-brace', 200)), 1, 'a mode is a label');
  t.equal(delta(before, after, responses('latency', '/drip', '', 400)), 1, 'the parameter error, under its endpoint');
  t.equal(delta(before, after, responses('none', 'none', '', 400)), 1, 'the malformed request, under no endpoint');
  t.equal(delta(before, after, responses('payload', '/truncate', '', 429)), 1, 'the 429, under the endpoint asked for');
  t.equal(delta(before, after, 'chaos_rate_limited_total{host="chaos",policy="general"}'), 1);
  t.equal(delta(before, after, 'chaos_request_errors_total{host="chaos",reason="invalid_params"}'), 1);
  t.equal(delta(before, after, 'chaos_request_errors_total{host="chaos",reason="malformed_request"}'), 1);
  t.equal(delta(before, after, 'chaos_response_duration_seconds_count{host="chaos",category="payload",endpoint="/truncate",status_class="2xx"}'), 1);
  t.ok(delta(before, after, 'chaos_response_bytes_total{host="chaos",category="payload",endpoint="/truncate"}') > 100, 'bytes sent, head included');
  for (const key of after.keys()) {
    t.notMatch(key, /127\.0\.0\.1|lots|at=|GARBAGE/, `no address, query or raw request in ${key.slice(0, 80)}`);
  }

  await t.test('the admin port: health, readiness, nothing else', async (t) => {
    t.equal((await fetch(`http://127.0.0.1:${chaos.admin}/healthz`)).status, 200);
    t.equal((await fetch(`http://127.0.0.1:${chaos.admin}/readyz`)).status, 200);
    t.equal((await fetch(`http://127.0.0.1:${chaos.admin}/truncate`)).status, 404, 'no endpoint on the admin port');
  });
});

t.test('held responses and open connections are read at scrape time; /readyz fails while draining', async (t) => {
  const chaos = await service(t, 'chaos', { RATE_LIMIT_GENERAL: '1000' });
  t.equal(await status(chaos.port, '/metrics'), 404, 'no metrics on the public port: the catalog miss');
  const drip = rawExchange(chaos.port, get('/drip?bytes=3&chunk=1&interval=1000', { Connection: 'close' }), { timeoutMs: 8000 });
  await sleep(400);
  const during = await scrape(chaos.admin);
  t.equal(during.get('chaos_held_responses{host="chaos"}'), 1, 'one holding response in progress');
  t.ok((during.get('chaos_connections_open{host="chaos"}') ?? 0) >= 1, 'its connection is open');
  chaos.process.child.kill('SIGTERM');
  await sleep(300);
  t.equal((await fetch(`http://127.0.0.1:${chaos.admin}/readyz`)).status, 503, 'not ready while draining');
  t.equal(parseHead((await drip).data).rest.toString(), '***', 'the response in flight finishes');
  t.same(await chaos.process.exited, { code: 0, signal: null });
});

t.test('control and bots count under their own host', async (t) => {
  const [control, bots] = await Promise.all([service(t, 'control'), service(t, 'bots')]);
  const [beforeControl, beforeBots] = await Promise.all([scrape(control.admin), scrape(bots.admin)]);
  t.equal(await status(control.port, '/truncate'), 200);
  t.equal(await status(bots.port, '/robots.txt'), 200);
  t.equal(await status(bots.port, '/robots.txt?mode=nope'), 400);
  const [afterControl, afterBots] = await Promise.all([scrape(control.admin), scrape(bots.admin)]);
  t.equal(delta(beforeControl, afterControl, 'chaos_responses_total{host="control",category="payload",endpoint="/truncate",mode="",code="200"}'), 1, 'the twin');
  t.equal(
    delta(beforeBots, afterBots, 'chaos_responses_total{host="bots",category="crawler-files",endpoint="/robots.txt",mode="allow-disallow-same-path",code="200"}'),
    1,
    'the bots file, its default mode a label',
  );
  t.equal(delta(beforeBots, afterBots, 'chaos_request_errors_total{host="bots",reason="invalid_params"}'), 1);
  t.notOk([...afterControl.keys()].some((k) => k.includes('host="chaos"')), 'one registry per process: control shows only itself');
});

t.test('AI sources and store fallbacks are counted', async (t) => {
  const redis = await startRedis(t);
  const chaos = await service(t, 'chaos', { REDIS_URL: redis.url, RATE_LIMIT_GENERAL: '1000' });
  const before = await scrape(chaos.admin);
  t.equal(await status(chaos.port, '/semantic-drift?ai=true'), 200);
  await redis.kill();
  for (let i = 0; i < 3; i++) t.equal(await status(chaos.port, '/truncate'), 200, 'served while Redis is down');
  const after = await scrape(chaos.admin);
  t.equal(delta(before, after, 'chaos_ai_requests_total{source="fallback",reason="ai-disabled"}'), 1, 'AI off: the fallback, and why');
  const fallbacks = ['unavailable', 'timeout', 'error'].reduce((n, r) => n + delta(before, after, `chaos_store_fallback_total{reason="${r}"}`), 0);
  t.ok(fallbacks >= 1, `the Redis outage is counted (${fallbacks})`);
});
