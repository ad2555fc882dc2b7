// A chaos server and a control process serving the hub (its catalog and
// /compare), on free loopback ports, with public URLs that name them the way
// the full stack does: chaos.localhost, control.localhost and localhost.
import { ChaosServer } from '../../services/chaos/server.js';
import { buildCatalog } from '../../shared/catalog/catalog.js';
import type { Config } from '../../shared/config/config.js';
import { HttpService } from '../../shared/http/http-service.js';
import { createLogger } from '../../shared/config/log.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from './raw.js';
import { freePorts, stopAtTeardown, testConfig } from './servers.js';
import { serviceRegistries, type ExtraEndpoints } from '../../services/registries.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface CompareHub {
  readonly config: Config;
  readonly chaos: ChaosServer;
  readonly chaosPort: number;
  readonly controlPort: number;
  /** The hub's Host value (localhost:<control port>). */
  readonly hubHost: string;
  /** Asks the hub over a raw socket; `localAddress` picks which client it is. */
  ask(target: string, options?: { accept?: string; host?: string; localAddress?: string; method?: string }): Promise<ParsedResponse>;
}

/** Starts both; `extra` adds test endpoints to the hosts' own (the compare reads the same registries). */
export async function startCompareHub(
  t: Teardown,
  options: { env?: Readonly<Record<string, string>>; extra?: ExtraEndpoints } = {},
): Promise<CompareHub> {
  for (let attempt = 1; ; attempt++) {
    const [chaosPort, controlPort] = (await freePorts(2)) as [number, number];
    const config = testConfig({
      PUBLIC_BASE_URL: `http://chaos.localhost:${chaosPort}`,
      PUBLIC_CONTROL_URL: `http://control.localhost:${controlPort}`,
      PUBLIC_HUB_URL: `http://localhost:${controlPort}`,
      ...options.env,
    });
    const registries = serviceRegistries(options.extra);
    const chaosRegistry = registries.chaos;
    const controlRegistry = registries.control;
    const chaosStore = new MemoryStore();
    const chaos = new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: chaosRegistry, store: chaosStore });
    const hubCatalogs = [buildCatalog(chaosRegistry, config), buildCatalog(controlRegistry, config), buildCatalog(registries.bots, config)];
    const controlStore = new MemoryStore();
    const control = new HttpService({
      host: 'control', config, logger: createLogger('control', 'silent'), registry: controlRegistry, store: controlStore,
      hubCatalogs, chaosRoutes: chaosRegistry,
    });
    try {
      await chaos.listen(chaosPort, '127.0.0.1');
      await control.listen(controlPort, '127.0.0.1');
    } catch (error) {
      for (const [service, store] of [[chaos, chaosStore], [control, controlStore]] as const) {
        if (service.server.listening) await service.shutdown(0);
        await store.close();
      }
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 5) continue;
      throw error;
    }
    stopAtTeardown(t, chaos, chaosStore);
    stopAtTeardown(t, control, controlStore);
    const hubHost = `localhost:${controlPort}`;
    const ask: CompareHub['ask'] = async (target, o = {}) => {
      const headers: Record<string, string> = { Host: o.host ?? hubHost };
      if (o.accept !== undefined) headers.Accept = o.accept;
      const result = await rawExchange(controlPort, get(target, headers, o.method), {
        until: completeByLength,
        timeoutMs: 20_000,
        ...(o.localAddress ? { localAddress: o.localAddress } : {}),
      });
      return parseHead(result.data);
    };
    return { config, chaos, chaosPort, controlPort, hubHost, ask };
  }
}
