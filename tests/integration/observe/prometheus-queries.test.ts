// Every Grafana panel's query and every alert expression of docs/deploy.md,
// run against a real Prometheus scraping a real local stack (supervisor, Redis,
// replicas, HAProxy) after traffic: each must return data, with each of the
// three Prometheus configurations the project ships (the local stack's,
// compose's and Kubernetes'). Only the service discovery of the last two is
// replaced, by static targets carrying the labels the discovery would give
// (Docker's DNS has no chaos/control/bots names here, and Debian's Prometheus
// is built without Kubernetes discovery); their job names and relabelling run
// as written.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { renderPrometheusConfig, SERVICES_JOB } from '../../../services/prometheus-config.js';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startPrometheus, type QueryAnswer, type RunningPrometheus } from '../../helpers/prometheus.js';
import { startStack, type Stack } from '../../helpers/stack.js';

const SERVICES = ['chaos', 'control', 'bots'] as const;
type Service = (typeof SERVICES)[number];
const SCRAPE_SECONDS = 1;
const root = new URL('../../../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

interface Replica {
  readonly service: Service;
  readonly name: string;
  readonly pid: number;
  /** Its public port (the pod role of Kubernetes discovery offers one target per container port). */
  readonly port: number;
  readonly admin: number;
}

function replicasOf(stack: Stack): Replica[] {
  return SERVICES.flatMap((service) =>
    stack.replicas(service).map((r, i) => {
      const environ = readFileSync(`/proc/${r.pid}/environ`, 'utf8').split('\0');
      const admin = Number(environ.find((e) => e.startsWith('METRICS_PORT='))?.split('=')[1]);
      return { service, name: `${service}.${i + 1}`, pid: r.pid, port: r.port, admin };
    }),
  );
}

/** The config with a 1 s scrape interval (Grafana's $__rate_interval follows it below). */
function withShortInterval(config: Obj): Obj {
  return { ...config, global: { ...obj(config.global), scrape_interval: `${SCRAPE_SECONDS}s`, evaluation_interval: `${SCRAPE_SECONDS}s` } };
}

/** deploy/prometheus/prometheus.yml: DNS discovery → static targets with the `__meta_dns_name` each answer carries. */
function composeConfig(replicas: readonly Replica[], haproxyAdmin: number): string {
  const config = withShortInterval(obj(parse(read('deploy/prometheus/prometheus.yml'))));
  const jobs = arr(config.scrape_configs).map((raw) => {
    const job = { ...obj(raw) };
    const dns = arr(job.dns_sd_configs).map(obj);
    delete job.dns_sd_configs;
    const statics = arr(job.static_configs).map(obj).map((s) => ({
      ...s,
      targets: arr(s.targets).map((target) => {
        if (target !== 'haproxy:8404') throw new Error(`compose: an unknown static target ${String(target)}`);
        return `127.0.0.1:${haproxyAdmin}`;
      }),
    }));
    const discovered = dns.flatMap((d) =>
      arr(d.names).map((name) => ({
        targets: replicas.filter((r) => r.service === name).map((r) => `127.0.0.1:${r.admin}`),
        labels: { __meta_dns_name: String(name) },
      })),
    );
    const unknown = Object.keys(job).filter((k) => k.endsWith('_sd_configs'));
    if (unknown.length > 0) throw new Error(`compose: discovery this test does not stand in for: ${unknown.join(', ')}`);
    return { ...job, static_configs: [...statics, ...discovered] };
  });
  return stringify({ ...config, scrape_configs: jobs });
}

/** Pod template annotations and labels of a Deployment in deploy/k8s/base. */
function podTemplate(name: string): { labels: Obj; annotations: Obj } {
  const deployment = parseAllDocuments(read(`deploy/k8s/base/${name}.yaml`))
    .map((d) => obj(d.toJS()))
    .find((o) => o.kind === 'Deployment');
  const metadata = obj(obj(obj(obj(deployment?.spec).template).metadata));
  return { labels: obj(metadata.labels), annotations: obj(metadata.annotations) };
}

/** The labels Kubernetes pod discovery gives one container port of a pod. */
function podTargets(pod: string, template: { labels: Obj; annotations: Obj }, ports: readonly number[], adminPort: number): Obj[] {
  const meta: Record<string, string> = { __meta_kubernetes_namespace: 'chaos-endpoints', __meta_kubernetes_pod_name: pod };
  const clean = (k: string) => k.replace(/[^a-zA-Z0-9_]/g, '_');
  for (const [k, v] of Object.entries(template.labels)) meta[`__meta_kubernetes_pod_label_${clean(k)}`] = String(v);
  for (const [k, v] of Object.entries(template.annotations)) meta[`__meta_kubernetes_pod_annotation_${clean(k)}`] = String(v);
  // The annotation names the container's admin port (9464 in the image); here each process has its own.
  meta.__meta_kubernetes_pod_annotation_prometheus_io_port = String(adminPort);
  return ports.map((port) => ({ targets: [`127.0.0.1:${port}`], labels: meta }));
}

/** deploy/k8s/prometheus/prometheus.yml: pod discovery → every pod of the stack, as the pod role lists them. */
function kubernetesConfig(replicas: readonly Replica[], front: number, haproxyAdmin: number): string {
  const config = withShortInterval(obj(parse(read('deploy/k8s/prometheus/prometheus.yml'))));
  const pods = [
    ...replicas.flatMap((r) => podTargets(`${r.service}-${r.name.split('.')[1]}`, podTemplate(r.service), [r.port, r.admin], r.admin)),
    ...podTargets('haproxy-1', podTemplate('haproxy'), [front, haproxyAdmin], haproxyAdmin),
  ];
  const jobs = arr(config.scrape_configs).map((raw) => {
    const job = { ...obj(raw) };
    const sd = arr(job.kubernetes_sd_configs).map(obj);
    if (sd.length !== 1 || sd[0]?.role !== 'pod') throw new Error(`kubernetes: ${String(job.job_name)} does not discover pods`);
    delete job.kubernetes_sd_configs;
    // Every pod to every job: each job's keep rules pick its own.
    return { ...job, static_configs: pods };
  });
  return stringify({ ...config, scrape_configs: jobs });
}

/** Grafana's substitutions: the $host variable's value, and $__rate_interval = max($__interval + scrape, 4 × scrape). */
function substitute(expr: string, host: string): string {
  const rateInterval = `${Math.max(SCRAPE_SECONDS + SCRAPE_SECONDS, 4 * SCRAPE_SECONDS)}s`;
  return expr.replaceAll('$__rate_interval', rateInterval).replaceAll('$__interval', `${SCRAPE_SECONDS}s`).replaceAll('$host', host);
}

/** The expression left of a top-level comparison (`up == 0` → `up`): what must return data when nothing is wrong. */
function withoutThreshold(expr: string): string {
  let depth = 0;
  let inString = false;
  let cut = -1;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i] as string;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if ('({['.includes(c)) depth++;
    else if (')}]'.includes(c)) depth--;
    else if (depth === 0 && /^(==|!=|>=|<=|>|<)/.test(expr.slice(i))) cut = i;
  }
  return cut === -1 ? expr : expr.slice(0, cut).trim();
}

/** The PromQL of each row of docs/deploy.md's "What to alert on" table. */
function alertExpressions(): { alert: string; expr: string }[] {
  const section = read('docs/deploy.md').split('## What to alert on')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| alert') && !line.startsWith('|---'))
    .map((line) => {
      const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
      const code = /`([^`]+)`/.exec(cells[2] ?? '')?.[1] ?? '';
      return { alert: cells[1] ?? '', expr: code.replaceAll('\\|', '|') };
    });
}

function dashboardExpressions(): { title: string; expr: string }[] {
  const dashboard = obj(JSON.parse(read('deploy/grafana/dashboards/chaos.json')));
  return arr(dashboard.panels)
    .map(obj)
    .flatMap((p) => arr(p.targets).map((target) => ({ title: String(p.title), expr: String(obj(target).expr) })));
}

/** Non-empty, with at least one number (histogram_quantile gives NaN where nothing was observed). */
function hasData(answer: QueryAnswer): boolean {
  return answer.status === 'success' && (answer.data?.result ?? []).some((s) => Number.isFinite(Number(s.value[1])));
}

t.test('tests its own tools', async (t) => {
  t.equal(withoutThreshold('up{job="x"} == 0'), 'up{job="x"}');
  t.equal(withoutThreshold('sum(rate(a{h!="c"}[5m])) / sum(rate(b[5m])) > 0.01'), 'sum(rate(a{h!="c"}[5m])) / sum(rate(b[5m]))');
  t.equal(withoutThreshold('max(x{p=~"a|b"}) > 450e6'), 'max(x{p=~"a|b"})');
  t.equal(withoutThreshold('sum(x)'), 'sum(x)');
  t.equal(substitute('rate(x{host=~"$host"}[$__rate_interval])', '.*'), 'rate(x{host=~".*"}[4s])', "Grafana's All value and rate interval");
  const alerts = alertExpressions();
  t.equal(alerts.length, 9, alerts.map((a) => a.alert).join('; '));
  t.ok(alerts.every((a) => a.expr !== '' && !a.expr.includes('\\')), 'every row has its PromQL, pipes unescaped');
});

t.test('every dashboard query and every alert expression returns data from a real Prometheus, with each configuration', async (t) => {
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  // One replica of each service keeps the stack light on a busy machine; the queries sum over replicas alike.
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '3', REPLICAS: '1' });
  t.comment(`stack up at ${elapsed()}`);
  const replicas = replicasOf(stack);
  t.equal(replicas.length, 3, 'one replica of each service');
  const configs: Record<string, string> = {
    'the local stack': renderPrometheusConfig({
      replicas: replicas.map((r) => ({ name: r.name, service: r.service, port: r.admin })),
      haproxyPort: stack.admin,
      scrapeIntervalSeconds: SCRAPE_SECONDS,
    }),
    compose: composeConfig(replicas, stack.admin),
    Kubernetes: kubernetesConfig(replicas, stack.front, stack.admin),
  };
  const proms = Object.fromEntries(
    await Promise.all(Object.entries(configs).map(async ([name, config]) => [name, await startPrometheus(t, config)] as const)),
  ) as Record<string, RunningPrometheus>;

  // Every target up in each: three replicas and HAProxy (discovery hands targets over after about 5 s).
  for (const [name, prom] of Object.entries(proms)) {
    const deadline = Date.now() + 30_000;
    let up: QueryAnswer = await prom.query('up == 1');
    while ((up.data?.result.length ?? 0) < 4 && Date.now() < deadline) {
      await sleep(250);
      up = await prom.query('up == 1');
    }
    const targets = (up.data?.result ?? []).map((s) => `${s.metric.job} ${s.metric.instance}`).sort();
    t.equal(targets.length, 4, `${name}: ${targets.join(', ')}\n${prom.log().slice(-1000)}`);
    const services = await prom.query(`count by (service) (up{job="${SERVICES_JOB}"})`);
    t.same((services.data?.result ?? []).map((s) => [s.metric.service, s.value[1]]).sort(), [['bots', '1'], ['chaos', '1'], ['control', '1']], `${name}: job ${SERVICES_JOB}, a service label on each replica`);
  }

  t.comment(`targets up at ${elapsed()}`);
  // Traffic that creates every series the queries read, on every host: a lie, a real 429 (3 a minute per
  // address), a parameter error, an AI-mode fallback, a 5xx twin on control and bots' hosts.
  const hosts = Object.fromEntries(SERVICES.map((s) => [s, new URL(stack.urls[s]).host])) as Record<Service, string>;
  const send = (host: string, path: string, from: string) => rawExchange(stack.front, get(path, { Host: host, Connection: 'close' }), { localAddress: from, timeoutMs: 5000 });
  const cheap: Record<Service, string> = { chaos: '/truncate', control: '/status/503', bots: '/robots.txt' };
  for (const [i, service] of SERVICES.entries()) {
    const codes: number[] = [];
    for (let n = 0; n < 4; n++) codes.push(parseHead((await send(hosts[service], cheap[service], `127.0.9.${i + 1}`)).data).status);
    t.equal(codes[3], 429, `${service}: a real 429 (${codes.join(', ')})`);
  }
  await send(hosts.chaos, '/drip?bytes=nope', '127.0.9.10');
  await send(hosts.chaos, '/semantic-drift?ai=true', '127.0.9.11');
  // Then steady traffic on every host until the queries are done, each request from a fresh address,
  // so every rate over the last few scrapes sees something. Bounded: at most 400 requests.
  let background = true;
  const steady = (async () => {
    for (let i = 0; background && i < 400; i++) {
      const service = SERVICES[i % 3] as Service;
      await send(hosts[service], service === 'chaos' ? '/status/200' : cheap[service], `127.0.${10 + Math.floor(i / 200)}.${(i % 200) + 1}`);
      await sleep(60);
    }
  })();
  t.teardown(async () => {
    background = false;
    await steady;
  });
  // Two scrapes after the first requests, so each rate has a sample on either side of them.
  await sleep((2 * SCRAPE_SECONDS + 1) * 1000);

  t.comment(`traffic sent at ${elapsed()}`);
  const panels = dashboardExpressions();
  t.ok(panels.length >= 25, `${panels.length} dashboard queries`);
  const alerts = alertExpressions();
  for (const [name, prom] of Object.entries(proms)) {
    await t.test(name, async (t) => {
      // The $host variable: its own query (label_values(chaos_responses_total, host)), then All (.*), each value, two values.
      const values = (await prom.labelValues('chaos_responses_total', 'host')).sort();
      t.same(values, [...SERVICES].sort(), 'the host variable offers the three hosts');
      const choices = ['.*', ...values, '(chaos|control)'];
      const empty: string[] = [];
      let asked = 0;
      for (const { title, expr } of panels) {
        for (const host of expr.includes('$host') ? choices : ['.*']) {
          const query = substitute(expr, host);
          t.notMatch(query, /\$/, `${title}: every variable substituted`);
          asked++;
          if (!hasData(await prom.query(query))) empty.push(`${title} [host=${host}]: ${query}`);
        }
      }
      t.same(empty, [], `${asked} panel queries return data`);
      for (const { alert, expr } of alerts) {
        const full = await prom.query(expr);
        t.equal(full.status, 'success', `${alert}: the expression runs (${full.error ?? ''})`);
        const signal = withoutThreshold(expr);
        t.ok(hasData(await prom.query(signal)), `${alert}: ${signal} returns data`);
      }
    });
  }
  background = false;
  await steady;
  t.comment(`queries done at ${elapsed()}`);

  // The replica-down alert fires for a replica that stops answering: SIGSTOP one, then its scrapes time out.
  const stopped = replicas.find((r) => r.service === 'control') as Replica;
  process.kill(stopped.pid, 'SIGSTOP');
  t.teardown(() => {
    try {
      process.kill(stopped.pid, 'SIGCONT');
    } catch {
      /* gone */
    }
  });
  const [downAlert] = alerts;
  t.match(downAlert?.alert, /replica is down/);
  for (const [name, prom] of Object.entries(proms)) {
    const deadline = Date.now() + 15_000;
    let down = await prom.query(downAlert?.expr ?? '');
    while ((down.data?.result.length ?? 0) === 0 && Date.now() < deadline) {
      await sleep(250);
      down = await prom.query(downAlert?.expr ?? '');
    }
    t.same(
      (down.data?.result ?? []).map((s) => [s.metric.instance, s.metric.service]),
      [[`127.0.0.1:${stopped.admin}`, 'control']],
      `${name}: "${downAlert?.expr}" names the stopped replica`,
    );
  }
  process.kill(stopped.pid, 'SIGCONT');
  t.comment(`replica-down seen at ${elapsed()}`);
});
