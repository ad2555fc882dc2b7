// The package's entry point (`import { start } from 'chaos-endpoint-service'`):
// the embedded default, for a test suite to run beside its tests.
//
// The three services run in the caller's process, each on its own port with
// a store of its own, as `make up` runs them in three processes. In-process
// rather than forked: nothing to spawn or wait for over IPC (docs/embedding.md
// has the timings), no child that a crashed test run can leave behind,
// and close() is an await on the servers themselves. What it gives up is the
// per-service node flags (shared/runtime/node-flags.ts), which tune throughput, not
// behaviour. Configuration is built by loadConfig from an env-like object,
// the one parser the processes use too.
import { loadConfig, usesRedis, type Config, type Env, type HostName, type LogLevel } from '../shared/config/config.js';
import { createLogger } from '../shared/config/log.js';
import { startService, type StartedService } from '../shared/runtime/run.js';
import { LogRelay } from '../shared/store/log-relay.js';
import { serviceRegistries } from './registries.js';
import { serviceFactory } from './service-factories.js';
import { freeLoopbackPorts } from './supervisor.js';

export { ConfigError, type Config, type LogLevel } from '../shared/config/config.js';

export interface StartOptions {
  /** Port of the chaos host; 0 (the default) takes a free one. */
  readonly chaosPort?: number;
  /** Port of the control host, which also answers as the hub; 0 (the default) takes a free one. */
  readonly controlPort?: number;
  /** Port of the bots host; 0 (the default) takes a free one. */
  readonly botsPort?: number;
  /** The address the three listen on (BIND_ADDRESS): 127.0.0.1 by default. */
  readonly bindAddress?: string;
  /** Shares state on this Redis (REDIS_URL: redis://host:port[/db]); the in-memory store when absent. */
  readonly redisUrl?: string;
  /**
   * The per-client limits: requests per minute (RATE_LIMIT_GENERAL,
   * RATE_LIMIT_INFINITE), held responses (MAX_HELD_PER_IP) and connections
   * (MAX_CONNECTIONS_PER_IP). Off by default, since every request of a test
   * suite comes from one address; true gives the service's own defaults.
   */
  readonly limits?: boolean;
  /** pino level of the services' JSON logs on stdout (LOG_LEVEL): `warn` by default. */
  readonly logLevel?: LogLevel;
  /**
   * Any other setting, by its environment variable's name (`chaos-endpoint-service
   * --help` lists them), such as `{ HOLD_MS: '1000' }`. The options above win
   * over it. The caller's own process.env is not read.
   */
  readonly env?: Readonly<Record<string, string>>;
}

export interface RunningService {
  /** Base URL of the chaos host, such as http://127.0.0.1:41234 (no trailing slash). */
  readonly chaosUrl: string;
  /** Base URL of the control host: the well-formed twins. */
  readonly controlUrl: string;
  /** Base URL of the bots host. */
  readonly botsUrl: string;
  /** Base URL of the hub (the catalog of all three hosts), a name of the control port: http://localhost:<control port>. */
  readonly hubUrl: string;
  /** The configuration the services run with (ports resolved). */
  readonly config: Config;
  /**
   * Stops all three and closes their stores; resolves when nothing of them is
   * left (no listener, connection or timer). Responses still in flight are cut
   * after `graceMs` (0 by default: at once). Calling it again returns the same promise.
   */
  close(graceMs?: number): Promise<void>;
}

const HOSTS: readonly HostName[] = ['chaos', 'control', 'bots'];
const PORT_VARIABLE: Readonly<Record<HostName, string>> = { chaos: 'CHAOS_PORT', control: 'CONTROL_PORT', bots: 'BOTS_PORT' };
/** A picked port taken by somebody else before we listened: tries with fresh ones. */
const PORT_ATTEMPTS = 5;

/**
 * The environment `start(options)` runs with: free ports, limits off and
 * warn-level logs under the caller's `env`, under the typed options.
 */
export function startEnv(options: StartOptions = {}): Env {
  const limitsOff = options.limits ? {} : { RATE_LIMIT_GENERAL: '0', RATE_LIMIT_INFINITE: '0', MAX_HELD_PER_IP: '0', MAX_CONNECTIONS_PER_IP: '0' };
  const typed: Record<string, string | undefined> = {
    CHAOS_PORT: options.chaosPort?.toString(),
    CONTROL_PORT: options.controlPort?.toString(),
    BOTS_PORT: options.botsPort?.toString(),
    BIND_ADDRESS: options.bindAddress,
    REDIS_URL: options.redisUrl,
    LOG_LEVEL: options.logLevel,
  };
  const given = Object.fromEntries(Object.entries(typed).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return { CHAOS_PORT: '0', CONTROL_PORT: '0', BOTS_PORT: '0', LOG_LEVEL: 'warn', ...limitsOff, ...options.env, ...given };
}

/**
 * Starts chaos, control and bots in this process. Rejects with a ConfigError
 * naming the variable behind a bad option, or with the listen error (such as
 * EADDRINUSE for a port that was given).
 */
export function start(options: StartOptions = {}): Promise<RunningService> {
  return startEmbedded(startEnv(options));
}

/**
 * The embedded default from an environment, read by loadConfig as the
 * processes read theirs: the bin passes its process's, start() the one built
 * from its options. A port of 0 is resolved to a free one before the config
 * is built, so that the public URLs every body and header names are real.
 */
export async function startEmbedded(env: Env): Promise<RunningService> {
  const requested = loadConfig(env);
  const registries = serviceRegistries();
  for (let attempt = 1; ; attempt++) {
    const unset = HOSTS.filter((host) => requested.ports[host] === 0);
    const picked = await freeLoopbackPorts(unset.length);
    const resolved: Env = { ...env, ...Object.fromEntries(unset.map((host, i) => [PORT_VARIABLE[host], String(picked[i])])) };
    const config = loadConfig(resolved);
    // Stores of their own, as in three processes; without Redis the chaos host's client exam entries go to control's (docs/exam.md).
    const relays = { chaos: new LogRelay(), control: new LogRelay(), bots: new LogRelay() };
    if (!usesRedis(config)) relays.chaos.relayTo((append) => relays.control.receive(append));
    const starts = await Promise.allSettled(
      HOSTS.map((host, i) => {
        // METRICS_PORT is the chaos host's admin port; control and bots take the next ones, as under `make up`.
        const hostConfig = config.metricsPort > 0 ? loadConfig({ ...resolved, METRICS_PORT: String(config.metricsPort + i) }) : config;
        return startService(serviceFactory(host, registries), (c) => c.ports[host], hostConfig, createLogger(host, config.logLevel), host, relays[host]);
      }),
    );
    const started = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = starts.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(started.map((service) => service.stop(0)));
      const taken = (failed.reason as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
      if (taken && unset.length > 0 && attempt < PORT_ATTEMPTS) continue;
      throw failed.reason;
    }
    return running(config, started);
  }
}

function running(config: Config, services: readonly StartedService[]): RunningService {
  let closed: Promise<void> | undefined;
  return Object.freeze({
    chaosUrl: config.urls.base,
    controlUrl: config.urls.control,
    botsUrl: config.urls.bots,
    hubUrl: config.urls.hub,
    config,
    close(graceMs = 0): Promise<void> {
      closed ??= Promise.all(services.map((service) => service.stop(graceMs))).then(() => undefined);
      return closed;
    },
  });
}
