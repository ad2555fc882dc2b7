// Starts the services in-process on free loopback ports, stopped at teardown,
// each with a store of its own (or the one given) closed after it stops, as
// the service runner does.
import net from 'node:net';
import { ChaosServer, type ChaosServerOptions } from '../../services/chaos/server.js';
import { serviceRegistries } from '../../services/registries.js';
import { buildCatalog } from '../../shared/catalog/catalog.js';
import { loadConfig, type Config } from '../../shared/config/config.js';
import { HttpService } from '../../shared/http/http-service.js';
import { createLogger } from '../../shared/config/log.js';
import { MemoryStore } from '../../shared/store/memory.js';
import type { Store } from '../../shared/store/types.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** At teardown: stops `service` (no grace), then closes the store it was given, even when stopping failed. */
export function stopAtTeardown(t: Teardown, service: { shutdown(graceMs: number): Promise<void> }, store: Store): void {
  t.teardown(async () => {
    try {
      await service.shutdown(0);
    } finally {
      await store.close();
    }
  });
}

/** Config for tests: silent logs, and distinct public hosts so 421 can be tested. */
export function testConfig(env: Readonly<Record<string, string>> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://chaos.test:8080',
    PUBLIC_CONTROL_URL: 'http://control.test:8080',
    PUBLIC_BOTS_URL: 'http://bots.test:8080',
    PUBLIC_HUB_URL: 'http://hub.test:8080',
    // Tests send many requests from 127.0.0.1; the limit has its own tests.
    RATE_LIMIT_GENERAL: '0',
    ...env,
  });
}

export async function startChaos(
  t: Teardown,
  options: Partial<Omit<ChaosServerOptions, 'config' | 'logger'>> & { config?: Config } = {},
): Promise<{ port: number; server: ChaosServer }> {
  const config = options.config ?? testConfig();
  const store = options.store ?? new MemoryStore();
  const server = new ChaosServer({ ...options, config, logger: createLogger('chaos', 'silent'), registry: options.registry ?? serviceRegistries().chaos, store });
  stopAtTeardown(t, server, store);
  const port = await server.listen(0, '127.0.0.1');
  return { port, server };
}

export async function startHttp(
  t: Teardown,
  host: 'control' | 'bots',
  config: Config = testConfig(),
  store: Store = new MemoryStore(),
): Promise<{ port: number; service: HttpService }> {
  const registry = host === 'control' ? serviceRegistries().control : serviceRegistries().bots;
  const service = new HttpService({ host, config, logger: createLogger(host, 'silent'), registry, store });
  stopAtTeardown(t, service, store);
  const port = await service.listen(0, '127.0.0.1');
  return { port, service };
}

/** Reserves `n` distinct free loopback ports: listens on port 0 n times, then releases them. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/**
 * Starts control and bots with public URLs naming their real addresses, so
 * every link a body holds can be followed in the test. A port taken between
 * reservation and listen is retried with fresh ports.
 */
export async function startLinkedHosts(
  t: Teardown,
  env: Readonly<Record<string, string>> = {},
): Promise<{ config: Config; control: number; bots: number }> {
  for (let attempt = 1; ; attempt++) {
    const [control, bots] = (await freePorts(2)) as [number, number];
    const config = testConfig({
      PUBLIC_CONTROL_URL: `http://127.0.0.1:${control}`,
      PUBLIC_BOTS_URL: `http://127.0.0.1:${bots}`,
      // Link-following tests make hundreds of requests from one address.
      RATE_LIMIT_GENERAL: '0',
      RATE_LIMIT_INFINITE: '0',
      ...env,
    });
    const services = (['control', 'bots'] as const).map((host) => {
      const registry = host === 'control' ? serviceRegistries().control : serviceRegistries().bots;
      // One store per host, as each runs in a process of its own.
      return new HttpService({ host, config, logger: createLogger(host, 'silent'), registry, store: new MemoryStore() });
    });
    try {
      await Promise.all(services.map((service, i) => service.listen(i === 0 ? control : bots, '127.0.0.1')));
    } catch (error) {
      await Promise.all(services.map((service) => (service.server.listening ? service.shutdown(0) : undefined)));
      await Promise.all(services.map((service) => service.store.close()));
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 5) continue;
      throw error;
    }
    for (const service of services) stopAtTeardown(t, service, service.store);
    return { config, control, bots };
  }
}

/** The three hosts and the hub, each reachable at the public URL its pages link to. */
export interface AllHosts {
  readonly config: Config;
  readonly chaos: number;
  readonly control: number;
  readonly bots: number;
  /** The hub's URL: a `*.localhost` name (browsers resolve it to the loopback) on the control port. */
  readonly hub: string;
}

/**
 * Starts chaos, control (also answering for the hub) and bots from the
 * service's linked registries, as the service runner does, with public URLs
 * naming their real addresses so every link a catalog page holds can be
 * followed. A port taken between reservation and listen is retried.
 */
export async function startAllHosts(t: Teardown, env: Readonly<Record<string, string>> = {}): Promise<AllHosts> {
  for (let attempt = 1; ; attempt++) {
    const [chaos, control, bots] = (await freePorts(3)) as [number, number, number];
    const hub = `http://hub.localhost:${control}`;
    const config = testConfig({
      PUBLIC_BASE_URL: `http://127.0.0.1:${chaos}`,
      PUBLIC_CONTROL_URL: `http://127.0.0.1:${control}`,
      PUBLIC_BOTS_URL: `http://127.0.0.1:${bots}`,
      PUBLIC_HUB_URL: hub,
      RATE_LIMIT_GENERAL: '0',
      RATE_LIMIT_INFINITE: '0',
      ...env,
    });
    const registries = serviceRegistries();
    const hubCatalogs = [buildCatalog(registries.chaos, config), buildCatalog(registries.control, config), buildCatalog(registries.bots, config)];
    const services = [
      new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: registries.chaos, store: new MemoryStore() }),
      new HttpService({ host: 'control', config, logger: createLogger('control', 'silent'), registry: registries.control, store: new MemoryStore(), hubCatalogs, chaosRoutes: registries.chaos }),
      new HttpService({ host: 'bots', config, logger: createLogger('bots', 'silent'), registry: registries.bots, store: new MemoryStore() }),
    ] as const;
    const ports = [chaos, control, bots];
    const started = await Promise.allSettled(services.map((service, i) => service.listen(ports[i] as number, '127.0.0.1')));
    const stores = services.map((service) => service.store);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await Promise.all(services.map((service, i) => (started[i]?.status === 'fulfilled' ? service.shutdown(0) : undefined)));
      await Promise.all(stores.map((store) => store.close()));
      if ((failed.reason as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 5) continue;
      throw failed.reason;
    }
    services.forEach((service, i) => stopAtTeardown(t, service, stores[i] as Store));
    return { config, chaos, control, bots, hub };
  }
}
