// Process life of one service: load config (a bad value stops start-up with a
// message naming the variable), listen, report readiness, and on SIGTERM or
// SIGINT stop accepting and let in-flight responses finish (bounded), then
// close the process's store.
import { ConfigError, loadConfig, type Config, type Env, type HostName } from '../config/config.js';
import { createLogger, type Logger } from '../config/log.js';
import { AdminServer } from './admin.js';
import { Metrics } from './metrics.js';
import { observe } from '../pipeline/observe.js';
import { missingNodeFlags } from './node-flags.js';
import { createStore } from '../store/index.js';
import { isLogAppend, isRelayRequest, LogRelay } from '../store/log-relay.js';
import type { Store } from '../store/types.js';

export interface Service {
  listen(port: number, host: string): Promise<number>;
  shutdown(graceMs: number): Promise<void>;
  /** What the metrics read at scrape time (absent: 0). */
  readonly connectionCount?: number;
  readonly heldResponses?: number;
  /** Endpoint id → route template: the metrics' endpoint label. */
  readonly endpointPaths?: ReadonlyMap<string, string>;
  /** TLS mode → seconds until its certificate expires (the chaos process with TLS; control's leaf as `control`). */
  tlsCertExpiry?(): ReadonlyMap<string, number>;
}

export interface ReadyMessage {
  readonly type: 'ready';
  readonly service: HostName;
  readonly port: number;
  readonly url: string;
}

/**
 * The process's environment: the one place anything reads process.env. Every
 * setting in it is read through loadConfig; the launchers (services/main.ts,
 * the bin) also hand it on whole to what they start.
 */
export function processEnv(): Env {
  return process.env;
}

/** Loads config from `env` (the process's by default) or exits 2 with the reason. */
export function configOrExit(env: Env = processEnv()): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** Builds a service around the store it is given; the runner owns the store and closes it. */
export type ServiceFactory = (config: Config, logger: Logger, store: Store) => Service;

export interface StartedService {
  readonly port: number;
  readonly url: string;
  /** Stops the service (in-flight responses get up to `graceMs`), then closes its store, even when stopping failed. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Builds the process's one store from config, the service around it, and
 * listens. A start that fails closes the store before it rejects, so nothing
 * the store holds (timers, a Redis connection) keeps the process alive.
 */
export async function startService(
  create: ServiceFactory,
  portOf: (config: Config) => number,
  config: Config,
  logger: Logger,
  host?: HostName,
  /** Carries log appends to or from another host's process (the embedded default without Redis; shared/store/log-relay.ts). */
  relay?: LogRelay,
): Promise<StartedService> {
  // The admin port (METRICS_PORT): metrics subscribe before the first request, and count the store's fallbacks.
  let service: Service | undefined;
  const metrics =
    config.metricsPort > 0 && host !== undefined
      ? new Metrics(host, () => service?.endpointPaths ?? new Map(), {
          connections: () => service?.connectionCount ?? 0,
          heldResponses: () => service?.heldResponses ?? 0,
          // Chaos's modes; control's one leaf (mode "control") where it listens for TLS.
          ...(config.tls.dir !== undefined && (host === 'chaos' || (host === 'control' && config.tls.controlPort !== undefined))
            ? { tlsCertExpiry: () => service?.tlsCertExpiry?.() ?? new Map() }
            : {}),
        })
      : undefined;
  const store = await createStore(config, logger, metrics ? { onFallback: metrics.storeFallback } : {});
  const admin = metrics ? new AdminServer(metrics) : undefined;
  let port: number;
  try {
    service = create(config, logger, relay ? relay.wrap(store) : store);
    port = await service.listen(portOf(config), config.bindAddress);
    if (admin) await admin.listen(config.metricsPort, config.bindAddress);
  } catch (error) {
    metrics?.close();
    await admin?.close();
    await store.close().catch((closeError: unknown) => logger.error({ err: closeError }, 'store close failed'));
    throw error;
  }
  if (admin) admin.ready = true;
  const running = service;
  const url = `http://${config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress}:${port}`;
  return {
    port,
    url,
    async stop(graceMs) {
      // Not ready from the first moment of the drain, so a balancer stops sending new connections;
      // with an admin port, keep serving for DRAIN_NOTICE_MS so it has noticed before we stop accepting.
      if (admin) {
        admin.ready = false;
        if (config.drainNoticeMs > 0) await new Promise((resolve) => setTimeout(resolve, config.drainNoticeMs));
      }
      try {
        await running.shutdown(graceMs);
      } finally {
        // After the service: responses still finishing may need the store.
        await store.close();
        metrics?.close();
        await admin?.close();
      }
    },
  };
}

export async function runService(
  name: HostName,
  create: ServiceFactory,
  portOf: (config: Config) => number,
): Promise<void> {
  const config = configOrExit();
  const logger = createLogger(name, config.logLevel);
  const missing = missingNodeFlags(name);
  if (missing.length > 0) logger.warn({ missing }, `started without the node flags ${name} is tuned for (shared/runtime/node-flags.ts): ${missing.join(' ')}`);
  let started: StartedService;
  // Under the supervisor of the embedded default without Redis, the client exam's log appends travel through it (docs/exam.md).
  const relay = new LogRelay();
  if (process.send !== undefined) {
    process.on('message', (message: unknown) => {
      if (isLogAppend(message)) relay.receive(message);
      else if (isRelayRequest(message)) relay.relayTo((append) => process.send?.(append));
    });
  }
  try {
    started = await startService(create, portOf, config, logger, name, relay);
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    process.stderr.write(`${name}: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const { port, url } = started;
  logger.info({ url }, 'listening');
  // One line per response at debug level: route, outcome, status, size and time only
  // (never the query, a header value, the body or the client's address: DESIGN §10).
  if (logger.isLevelEnabled('debug')) {
    observe((o) => {
      if (o.host !== name) return;
      logger.debug(
        { endpoint: o.endpoint ?? null, category: o.category ?? null, mode: o.mode ?? null, status: o.status, bytes: o.bytes, ms: Math.round(o.durationMs), outcome: o.outcome, completed: o.completed },
        'response',
      );
    });
  }
  const ready: ReadyMessage = { type: 'ready', service: name, port, url };
  process.send?.(ready);

  let stopping = false;
  const stop = (signal: string): void => {
    // Later signals are ignored: the supervisor escalates if the grace runs out.
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    started.stop(config.shutdownGraceMs).then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('disconnect', () => stop('disconnect'));
}
