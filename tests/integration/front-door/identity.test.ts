// The client address through the real front door: HAProxy carries it to the
// chaos replicas in PROXY v2 and to control and bots in X-Forwarded-For, the
// limiter counts it across replicas on the shared Redis, and the edge caps one
// address's connections before any replica sees them.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startStack } from '../../helpers/stack.js';

const closing = (path: string, host: string): string => get(path, { Host: host, Connection: 'close' });

t.test('the client address reaches the limiter; replicas share one budget', async (t) => {
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '3', MAX_CONNECTIONS_PER_IP: '4' });
  const chaosHost = new URL(stack.urls.chaos).host;
  const controlHost = new URL(stack.urls.control).host;
  // A replica that has not reached Redis yet serves from its own memory (fail-open, counted per process):
  // wait, bounded, until a throwaway client sees the shared budget on both hosts.
  for (const [host, base] of [[chaosHost, 60], [controlHost, 70]] as const) {
    const deadline = Date.now() + 15_000;
    for (let i = 0; Date.now() < deadline; i++) {
      const from = `127.0.${base + (i % 50)}.9`;
      const codes: number[] = [];
      for (let n = 0; n < 4; n++) codes.push(parseHead((await rawExchange(stack.front, closing('/slow?ms=0', host), { localAddress: from })).data).status);
      if (codes[3] === 429) break;
      await sleep(250);
    }
  }
  for (const [host, name, addresses] of [
    [chaosHost, 'chaos (PROXY v2)', ['127.0.0.2', '127.0.0.3']],
    [controlHost, 'control (X-Forwarded-For)', ['127.0.0.12', '127.0.0.13']],
  ] as const) {
    await t.test(name, async (t) => {
      const status = async (from: string, spoof?: string): Promise<number> => {
        const headers: Record<string, string> = { Host: host, Connection: 'close', ...(spoof ? { 'X-Forwarded-For': spoof } : {}) };
        return parseHead((await rawExchange(stack.front, get('/slow?ms=0', headers), { localAddress: from })).data).status;
      };
      const [first, second] = addresses;
      const seen = [await status(first), await status(first, '10.9.8.7'), await status(first, '10.9.8.6'), await status(first, '10.9.8.5')];
      t.same(seen, [200, 200, 200, 429], `${first}: 3 allowed across both replicas, then 429, whatever X-Forwarded-For it sends`);
      t.equal(await status(second), 200, `${second} has its own budget`);
    });
  }
  await t.test('the per-client connection cap is applied at the edge', async (t) => {
    const idle = await Promise.all(
      Array.from({ length: 4 }, () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect({ port: stack.front, host: '127.0.0.1', localAddress: '127.0.0.20' });
          socket.once('connect', () => resolve(socket));
          socket.once('error', reject);
        }),
      ),
    );
    t.teardown(() => idle.forEach((s) => s.destroy()));
    await sleep(200);
    const refused = await rawExchange(stack.front, closing('/slow?ms=0', chaosHost), { localAddress: '127.0.0.20', timeoutMs: 3000 });
    t.equal(refused.data.length, 0, 'the fifth connection from one address gets nothing');
    t.not(refused.end, 'timeout', 'it is closed at once');
    const other = await rawExchange(stack.front, closing('/slow?ms=0', chaosHost), { localAddress: '127.0.0.21' });
    t.equal(parseHead(other.data).status, 200, 'another address is served');
  });
});

/** Metric names in a PromQL expression (label values and strings aside). */
function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return [...withoutStrings.matchAll(/\b(?:chaos|haproxy|process|nodejs)_[a-z0-9_]+\b/g)].map((m) => m[0]);
}

/** Label names a selector `name{…}` filters on, per metric name. */
function matcherLabels(expr: string): [string, string][] {
  return [...expr.matchAll(/\b([a-z_:][a-z0-9_:]*)\{([^}]*)\}/g)].flatMap((m) =>
    [...(m[2] as string).matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)/g)].map((x) => [m[1] as string, x[1] as string] as [string, string]),
  );
}

/** Label names a PromQL expression groups or joins on: `by (…)`, `on (…)`, `group_left (…)` lists. */
function groupingLabels(expr: string): string[] {
  const groups = [...expr.matchAll(/\b(?:by|on|group_left|group_right)\s*\(([^)]*)\)/g)].flatMap((m) => (m[1] as string).split(',').map((s) => s.trim()));
  return [...new Set(groups)].filter((l) => l !== '');
}

/** `name` → the label names its samples carry, from an exposition. */
function exposed(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type) {
      if (!out.has(type[1] as string)) out.set(type[1] as string, new Set());
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? /.exec(line);
    if (!sample) continue;
    const labels = out.get(sample[1] as string) ?? new Set<string>();
    for (const m of (sample[2] ?? '').matchAll(/([a-zA-Z_]+)="/g)) labels.add(m[1] as string);
    out.set(sample[1] as string, labels);
  }
  return out;
}

t.test('every metric and label the Grafana dashboard queries is exposed by a real process after traffic', async (t) => {
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '2' });
  const chaosHost = new URL(stack.urls.chaos).host;
  // Traffic that creates every series the dashboard reads: a lie, a real 429, a parameter error, an AI-mode fallback.
  for (let i = 0; i < 3; i++) await rawExchange(stack.front, closing('/truncate', chaosHost), { localAddress: '127.0.0.40' });
  await rawExchange(stack.front, closing('/drip?bytes=nope', chaosHost), { localAddress: '127.0.0.41' });
  await rawExchange(stack.front, closing('/semantic-drift?ai=true', chaosHost), { localAddress: '127.0.0.42' });
  const admins = [...stack.supervisor.stdout().matchAll(/chaos\.1 :(\d+)/g)].map((m) => Number(m[1]));
  t.equal(admins.length, 1, 'the banner names chaos.1 admin port');
  const replicas = await Promise.all(
    [...stack.supervisor.stdout().matchAll(/(chaos|control|bots)\.\d :(\d+)/g)].map(async (m) => (await fetch(`http://127.0.0.1:${m[2]}/metrics`)).text()),
  );
  const haproxy = await (await fetch(`http://127.0.0.1:${stack.admin}/metrics`)).text();
  const all = exposed([...replicas, haproxy].join('\n'));
  const dashboard = JSON.parse(readFileSync(new URL('../../../../deploy/grafana/dashboards/chaos.json', import.meta.url), 'utf8')) as { panels: { targets?: { expr: string }[]; panels?: unknown[] }[] };
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((x) => x.expr));
  t.ok(exprs.length >= 20, `${exprs.length} queries`);
  // Added by Prometheus at scrape time (the target's job and instance, compose's service label), not by a process.
  const targetLabels = new Set(['job', 'instance', 'service', 'le']);
  for (const expr of exprs) {
    const names = metricNames(expr);
    for (const name of names) t.ok(all.get(name), `${name} is exposed (${expr.slice(0, 60)})`);
    for (const [name, label] of matcherLabels(expr)) {
      if (!targetLabels.has(label)) t.ok(all.get(name)?.has(label), `${name} carries the label ${label} it is filtered on`);
    }
    // A join (`* on (job, instance) group_left (host) …`) takes a label from one side: some metric of the expression carries it.
    for (const label of groupingLabels(expr)) {
      if (!targetLabels.has(label)) t.ok(names.some((name) => all.get(name)?.has(label)), `${label}, grouped on in ${expr.slice(0, 60)}, is carried by one of ${names.join(', ')}`);
    }
  }
  // The admin ports are private: through the front door, /metrics, /healthz, /readyz and HAProxy's /stats are
  // ordinary paths of the public hosts (the catalog's 404), never the metrics or health answers.
  // Each from its own address: this stack's general limit is 2 requests a minute.
  let client = 50;
  for (const host of Object.values(stack.urls).map((u) => new URL(u).host)) {
    for (const path of ['/metrics', '/healthz', '/readyz', '/stats']) {
      const res = await rawExchange(stack.front, closing(path, host), { localAddress: `127.0.0.${client++}` });
      const text = res.data.toString('latin1');
      t.equal(parseHead(res.data).status, 404, `${host}${path} through the front door: 404`);
      t.notMatch(text, /chaos_responses_total|haproxy_frontend|"status":"(ok|ready)"|Statistics Report/, `${host}${path}: nothing of the admin answers`);
    }
  }
});
