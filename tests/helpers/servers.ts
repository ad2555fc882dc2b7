// Starts the services in-process on free loopback ports, stopped at teardown.
import { createBotsRegistry } from '../../services/bots/endpoints/index.js';
import { createChaosRegistry } from '../../services/chaos/endpoints/index.js';
import { ChaosServer, type ChaosServerOptions } from '../../services/chaos/server.js';
import { createControlRegistry } from '../../services/control/endpoints/index.js';
import { loadConfig, type Config } from '../../shared/config.js';
import { HttpService } from '../../shared/http-service.js';
import { createLogger } from '../../shared/log.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** Config for tests: silent logs, and distinct public hosts so 421 can be tested. */
export function testConfig(env: Readonly<Record<string, string>> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://chaos.test:8080',
    PUBLIC_CONTROL_URL: 'http://control.test:8080',
    PUBLIC_BOTS_URL: 'http://bots.test:8080',
    PUBLIC_HUB_URL: 'http://hub.test:8080',
    ...env,
  });
}

export async function startChaos(
  t: Teardown,
  options: Partial<Omit<ChaosServerOptions, 'config' | 'logger' | 'registry'>> & { config?: Config } = {},
): Promise<{ port: number; server: ChaosServer }> {
  const config = options.config ?? testConfig();
  const server = new ChaosServer({ ...options, config, logger: createLogger('chaos', 'silent'), registry: createChaosRegistry() });
  const port = await server.listen(0, '127.0.0.1');
  t.teardown(() => server.shutdown(0));
  return { port, server };
}

export async function startHttp(t: Teardown, host: 'control' | 'bots', config: Config = testConfig()): Promise<{ port: number; service: HttpService }> {
  const registry = host === 'control' ? createControlRegistry() : createBotsRegistry();
  const service = new HttpService({ host, config, logger: createLogger(host, 'silent'), registry });
  const port = await service.listen(0, '127.0.0.1');
  t.teardown(() => service.shutdown(0));
  return { port, service };
}
