// `make up`: runs the stack in the foreground under one supervisor and stops
// it all on Ctrl-C (SIGINT) or SIGTERM; a second Ctrl-C kills at once.
//
// STACK=full      Redis (unless REDIS_URL names one), REPLICAS replicas of each
//                 service on private loopback ports, HAProxy on FRONT_PORT (and,
//                 with TLS_DIR, on FRONT_TLS_PORT for TLS chaos).
// STACK=embedded  chaos, control and bots on CHAOS_PORT, CONTROL_PORT,
//                 BOTS_PORT, in-memory store (or REDIS_URL's Redis).
// STACK=auto      full when haproxy and redis-server are installed, else
//                 embedded with one line naming what is missing.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderHaproxyConfig } from '../proxy/haproxy-config.js';
import { renderPrometheusConfig } from './prometheus-config.js';
import { loadConfig, usesRedis, type Config, type Env, type HostName } from '../shared/config/config.js';
import { NODE_FLAGS } from '../shared/runtime/node-flags.js';
import { controlTlsHost } from '../shared/tls/modes.js';
import { configOrExit, processEnv, type ReadyMessage } from '../shared/runtime/run.js';
import { isLogAppend, RELAY_LOG_APPENDS } from '../shared/store/log-relay.js';
import { followingParent, freeLoopbackPorts, portAccepts, redisAnswers, Supervisor, type ProcessSpec } from './supervisor.js';

const SERVICES: readonly HostName[] = ['chaos', 'control', 'bots'];
const PORT_VARIABLE: Record<HostName, string> = { chaos: 'CHAOS_PORT', control: 'CONTROL_PORT', bots: 'BOTS_PORT' };
const START_TIMEOUT_MS = 60_000;

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const supervisor = new Supervisor((line) => process.stderr.write(`supervisor| ${line}\n`), out);

/** An executable in one of `programPath`'s directories (PATH), or undefined. */
function installed(command: string, programPath: readonly string[]): string | undefined {
  for (const dir of programPath) {
    const path = join(dir, command);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** A forked service that is ready when it says so over IPC (`onReady` is told each time, restarts included, with the process). */
function serviceSpec(name: string, service: HostName, env: Env, onReady?: (m: ReadyMessage, child: ChildProcess) => void): ProcessSpec {
  return {
    name,
    stopPhase: 1,
    stopSignal: 'SIGTERM',
    start: () =>
      // detached: a group of its own, out of reach of a terminal's Ctrl-C (supervisor.ts says why); it stops when the IPC channel closes.
      fork(fileURLToPath(new URL(`./${service}/main.js`, import.meta.url)), [], { env, execArgv: [...NODE_FLAGS[service]], stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true }),
    ready: (child) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} not ready after ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
        child.on('message', (message: ReadyMessage) => {
          if (message?.type !== 'ready') return;
          clearTimeout(timer);
          onReady?.(message, child);
          resolve();
        });
      }),
  };
}

/** A system program (Redis, HAProxy): ready when its port accepts. */
function programSpec(name: string, command: string, args: readonly string[], port: number, stopPhase: number, stopSignal: NodeJS.Signals): ProcessSpec {
  return {
    name,
    stopPhase,
    stopSignal,
    // A group of its own (no Ctrl-C from the terminal), SIGTERMed by the kernel if the supervisor dies.
    start: (): ChildProcess => spawn(...followingParent(command, args), { stdio: ['ignore', 'pipe', 'pipe'], detached: true }),
    ready: () => portAccepts(port, START_TIMEOUT_MS),
  };
}

/**
 * `env` with `defaults` where it sets nothing (unset or empty, which loadConfig
 * also reads as unset): the layers a launcher adds under what the user set.
 */
function underDefaults(defaults: Readonly<Record<string, string>>, env: Env): Env {
  const layered: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(defaults)) if (!layered[name]) layered[name] = value;
  return layered;
}

/**
 * Without Redis each process has its own memory: the chaos process's client
 * exam entries are sent up over IPC and handed to the control process, where
 * the hub keeps the exam's log (docs/exam.md, "The embedded default").
 */
function relayExamLogs(children: ReadonlyMap<HostName, ChildProcess>, service: HostName, child: ChildProcess): void {
  if (service !== 'chaos') return;
  child.on('message', (message: unknown) => {
    const control = children.get('control');
    if (isLogAppend(message) && control?.connected === true) control.send(message);
  });
  child.send(RELAY_LOG_APPENDS);
}

async function runEmbedded(env: Env, config: Config, note: string | undefined): Promise<void> {
  const urls = new Map<HostName, string>();
  const children = new Map<HostName, ChildProcess>();
  for (const [i, service] of SERVICES.entries()) {
    // METRICS_PORT is the first process's admin port; the others take the next ones.
    const serviceEnv = config.metricsPort > 0 ? { ...env, METRICS_PORT: String(config.metricsPort + i) } : env;
    await supervisor.add(
      serviceSpec(service, service, serviceEnv, (m, child) => {
        urls.set(service, m.url);
        children.set(service, child);
        if (!usesRedis(config)) relayExamLogs(children, service, child);
      }),
    );
  }
  out(
    `\nChaos Endpoint Service is up (embedded default: ${usesRedis(config) ? 'state shared on Redis' : 'in-memory store'}, direct ports)\n` +
      SERVICES.map((s) => `  ${s.padEnd(8)} ${urls.get(s)}/`).join('\n') +
      `\n  hub      ${config.urls.hub}/   (the catalog of all three hosts, answered by control)` +
      (config.metricsPort > 0 ? `\n  admin    http://127.0.0.1:${config.metricsPort}…${config.metricsPort + 2} /metrics /healthz /readyz (chaos, control, bots)` : '') +
      `\nTry: curl -v ${urls.get('chaos')}/truncate   (its twin: curl -v ${urls.get('control')}/truncate)\n` +
      tlsLines(config, config.tls.controlPort) +
      (note ? `${note}\n` : '') +
      'Ctrl-C stops all three (a second Ctrl-C kills at once).\n',
  );
}

/**
 * What `make up` prints about TLS chaos (docs/tls.md): the good twin's URL and how one command trusts the test root;
 * with CONTROL_TLS_PORT, the control twins' TLS URL (docs/http2.md) on `controlPort` (the front door's, or control's own).
 */
function tlsLines(config: Config, controlPort: number | undefined): string {
  if (config.tls.dir === undefined) return '';
  const good = `https://good.${config.tls.base}:${config.tls.publicPort}/`;
  return (
    `TLS: ${good} and every mode in ${config.urls.hub}/tls/hosts.json (root kept in ${config.tls.dir})\n` +
    (controlPort !== undefined && config.tls.controlPort !== undefined
      ? `  control twins over TLS (ALPN h2): https://${controlTlsHost(config.tls.base)}:${controlPort}/   (curl --http2 --cacert chaos-root.pem …)\n`
      : '') +
    `  trust the test root for one command, never in a system store: curl -so chaos-root.pem ${config.urls.hub}/tls/root.pem && curl --cacert chaos-root.pem ${good}\n`
  );
}

/** The full stack's defaults of PUBLIC_*_URL (set ones win): each host name on FRONT_PORT. */
function frontUrlDefaults(config: Config): Record<string, string> {
  const port = config.ports.front === 80 ? '' : `:${config.ports.front}`;
  return {
    PUBLIC_BASE_URL: `http://chaos.localhost${port}`,
    PUBLIC_CONTROL_URL: `http://control.localhost${port}`,
    PUBLIC_BOTS_URL: `http://bots.localhost${port}`,
    PUBLIC_HUB_URL: `http://localhost${port}`,
    PUBLIC_IDENTITY_URL: `http://identity.localhost${port}`,
    PUBLIC_AGENTS_URL: `http://agents.localhost${port}`,
  };
}

const hostnameOf = (url: string): string => new URL(url).hostname.toLowerCase();

async function runFull(userEnv: Env, base: Config): Promise<void> {
  // Every private port at once, so they are distinct: Redis, HAProxy's admin port, then the replicas'.
  const count = SERVICES.length * base.replicas;
  // TLS chaos (TLS_DIR set): each chaos replica's TLS listener on a private port too, behind FRONT_TLS_PORT;
  // with CONTROL_TLS_PORT set (make up sets it), each control replica's too, for control.<TLS_BASE>.
  const tlsCount = base.tls.dir === undefined ? 0 : base.replicas;
  const controlTlsCount = tlsCount > 0 && base.tls.controlPort !== undefined ? base.replicas : 0;
  const [redisPort, adminPort, prometheusPort, ...replicaPorts] = (await freeLoopbackPorts(3 + 2 * count + tlsCount + controlTlsCount)) as [number, number, number, ...number[]];
  const controlTlsPorts = replicaPorts.splice(replicaPorts.length - controlTlsCount);
  const tlsPorts = replicaPorts.splice(replicaPorts.length - tlsCount);
  // Every replica has an admin port (/metrics, /healthz, /readyz): METRICS_PORT and the next ones, or free ones.
  const metricsPorts = base.metricsPort > 0 ? Array.from({ length: count }, (_, i) => base.metricsPort + i) : replicaPorts.splice(count);
  const runDir = mkdtempSync(join(tmpdir(), 'chaos-stack-'));
  process.on('exit', () => rmSync(runDir, { recursive: true, force: true }));
  // The proxies the user trusts (canonical CIDRs, which TRUST_PROXY reads back as they are), and our HAProxy.
  const trust = ['loopback', ...base.trustProxy.entries].join(',');
  // A stopping replica fails HAProxy's readiness check (1 s apart, 2 to go down) before it stops accepting.
  // Every replica keeps the one TLS_DIR: the first to start makes the test root there, the others read it (pki.ts).
  const env: Record<string, string | undefined> = {
    ...underDefaults({ DRAIN_NOTICE_MS: '2500', PUBLIC_TLS_PORT: String(base.tls.frontPort), ...frontUrlDefaults(base) }, userEnv),
    TRUST_PROXY: trust,
    BIND_ADDRESS: '127.0.0.1',
  };
  // The replicas' configuration, checked once here so a bad value names its variable before anything starts.
  const config = loadConfig(env);

  let redisNote: string;
  if (usesRedis(config)) {
    redisNote = 'state shared on the Redis that REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES names';
  } else {
    env.REDIS_URL = `redis://127.0.0.1:${redisPort}`;
    redisNote = `state shared on Redis 127.0.0.1:${redisPort} (no persistence)`;
    const args = ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', runDir, '--loglevel', 'warning'];
    await supervisor.add({ ...programSpec('redis', 'redis-server', args, redisPort, 2, 'SIGTERM'), ready: () => redisAnswers(redisPort, START_TIMEOUT_MS) });
  }

  const replicas: Record<HostName, number[]> = { chaos: [], control: [], bots: [] };
  const checkPorts: Record<HostName, number[]> = { chaos: [], control: [], bots: [] };
  const admins: string[] = [];
  const scrapeTargets: { name: string; service: string; port: number }[] = [];
  const starts: Promise<void>[] = [];
  for (const service of SERVICES) {
    for (let i = 1; i <= config.replicas; i++) {
      const port = replicaPorts.shift() as number;
      const metricsPort = metricsPorts.shift() as number;
      replicas[service].push(port);
      checkPorts[service].push(metricsPort);
      admins.push(`${service}.${i} :${metricsPort}`);
      scrapeTargets.push({ name: `${service}.${i}`, service, port: metricsPort });
      const tlsPort = service === 'chaos' ? tlsPorts[i - 1] : undefined;
      const controlTlsPort = service === 'control' ? controlTlsPorts[i - 1] : undefined;
      const replicaEnv = {
        ...env,
        [PORT_VARIABLE[service]]: String(port),
        METRICS_PORT: String(metricsPort),
        ...(tlsPort ? { CHAOS_TLS_PORT: String(tlsPort) } : {}),
        // Only control listens for control.<TLS_BASE>; set or not, the others ignore it.
        CONTROL_TLS_PORT: controlTlsPort ? String(controlTlsPort) : '',
      };
      starts.push(supervisor.add(serviceSpec(`${service}.${i}`, service, replicaEnv)));
    }
  }
  // All replicas start together; HAProxy only once every one serves.
  await Promise.all(starts);

  const haproxyCfg = join(runDir, 'haproxy.cfg');
  writeFileSync(
    haproxyCfg,
    renderHaproxyConfig({
      bindAddress: base.bindAddress,
      frontPort: config.ports.front,
      adminPort,
      hosts: {
        chaos: hostnameOf(config.urls.base),
        control: [config.urls.control, config.urls.hub, config.urls.identity, config.urls.agents].map(hostnameOf),
        bots: hostnameOf(config.urls.bots),
      },
      replicas,
      checkPorts,
      maxResponseMs: config.maxResponseMs,
      firstRequestTimeoutMs: config.firstRequestTimeoutMs,
      maxConnectionsPerIp: config.maxConnectionsPerIp,
      maxConnections: config.maxConnections,
      shutdownGraceMs: config.shutdownGraceMs,
      logEveryRequest: config.logLevel === 'debug' || config.logLevel === 'trace',
      ...(tlsCount > 0
        ? {
            tls: {
              frontPort: config.tls.frontPort,
              base: config.tls.base,
              replicas: tlsPorts,
              handshakesPerIp: config.tls.handshakesPerIp,
              ...(controlTlsCount > 0 ? { controlReplicas: controlTlsPorts } : {}),
            },
          }
        : {}),
    }),
  );
  // -db: foreground, logs on stderr. SIGUSR1 stops it softly: it stops listening and lets connections finish.
  await supervisor.add(programSpec('haproxy', 'haproxy', ['-db', '-f', haproxyCfg], config.ports.front, 0, 'SIGUSR1'));

  // Prometheus, when installed: scrapes every replica and HAProxy's exporter.
  let prometheusNote = '  Prometheus: not installed (apt-get install -y prometheus adds it to this stack)\n';
  if (installed('prometheus', config.programPath)) {
    const prometheusCfg = join(runDir, 'prometheus.yml');
    writeFileSync(prometheusCfg, renderPrometheusConfig({ replicas: scrapeTargets, haproxyPort: adminPort }));
    const args = [
      `--config.file=${prometheusCfg}`,
      `--storage.tsdb.path=${join(runDir, 'prometheus')}`,
      `--web.listen-address=127.0.0.1:${prometheusPort}`,
      '--log.level=warn',
    ];
    await supervisor.add(programSpec('prometheus', 'prometheus', args, prometheusPort, 0, 'SIGTERM'));
    prometheusNote = `  Prometheus http://127.0.0.1:${prometheusPort}/ (scrapes every replica and HAProxy)\n`;
  }

  const u = config.urls;
  out(
    `\nChaos Endpoint Service is up (full stack: HAProxy on ${base.bindAddress}:${config.ports.front}, ` +
      `${config.replicas} replica${config.replicas === 1 ? '' : 's'} of each service, ${redisNote})\n` +
      `  chaos    ${u.base}/\n  control  ${u.control}/\n  bots     ${u.bots}/\n  hub      ${u.hub}/   (the catalog of all three hosts)\n` +
      `  HAProxy  http://127.0.0.1:${adminPort}/stats and /metrics (private)   config: ${haproxyCfg}\n` +
      `  admin    /metrics /healthz /readyz on 127.0.0.1 (private): ${admins.join(', ')}\n` +
      prometheusNote +
      `Try: curl -v ${u.base}/truncate   (its twin: curl -v ${u.control}/truncate)\n` +
      tlsLines(config, controlTlsCount > 0 ? config.tls.frontPort : undefined) +
      'Ctrl-C stops everything (a second Ctrl-C kills at once).\n',
  );
}

function missingTools(config: Config): string[] {
  return [['haproxy', 'haproxy'], ...(usesRedis(config) ? [] : [['redis-server', 'redis-server']])].flatMap(([command, pkg]) =>
    installed(command as string, config.programPath) ? [] : [pkg as string],
  );
}

async function main(): Promise<void> {
  // Read once: every setting through loadConfig, and the whole of it handed on to the services.
  const env = processEnv();
  const config = configOrExit(env);
  let signals = 0;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (++signals > 1) {
        supervisor.kill();
        process.exit(1);
      }
      out(`\n${signal}: stopping (in-flight responses get up to ${config.shutdownGraceMs} ms; Ctrl-C again stops at once)`);
      void supervisor.stop(config.shutdownGraceMs).then(() => process.exit(process.exitCode ?? 0));
    });
  }
  const missing = missingTools(config);
  try {
    if (config.stack === 'embedded') {
      await runEmbedded(env, config, undefined);
    } else if (missing.length === 0) {
      await runFull(env, config);
    } else if (config.stack === 'full') {
      process.stderr.write(`STACK=full needs ${missing.join(' and ')}: apt-get install -y ${missing.join(' ')} (make up STACK=full installs them as root)\n`);
      process.exit(1);
    } else {
      await runEmbedded(
        env,
        config,
        `(${missing.join(' and ')} not installed, so not the full stack behind HAProxy: make up STACK=full installs them as root, or apt-get install -y ${missing.join(' ')})`,
      );
    }
  } catch (error) {
    if (supervisor.stopping) return;
    process.stderr.write(`make up: ${error instanceof Error ? error.message : String(error)}; stopping\n`);
    process.exitCode = 1;
    await supervisor.stop(config.shutdownGraceMs);
    process.exit(1);
  }
}

void main();
