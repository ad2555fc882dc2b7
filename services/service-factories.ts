// How each host's service is built around its config, logger and store: the
// one composition that the per-process mains (services/<host>/main.ts) and the
// embedded in-process start (embed.ts) share.
import type { HostName } from '../shared/config/config.js';
import { buildCatalog } from '../shared/catalog/catalog.js';
import { HttpService } from '../shared/http/http-service.js';
import type { Registries } from '../shared/registry/registries.js';
import type { ServiceFactory } from '../shared/runtime/run.js';
import type { HttpContext } from '../shared/http/http-service.js';
import { ChaosServer } from './chaos/server.js';
import { ChaosTlsService } from './chaos/tls/service.js';
import { ControlTlsService } from './control/tls-service.js';
import type { ChaosContext } from './chaos/endpoint.js';
import { serviceRegistries } from './registries.js';

type ServiceRegistries = Registries<ChaosContext, HttpContext>;

/**
 * The factory of `host`'s service. Without `registries` they are built when
 * the service is (a broken definition then fails that start, reported by the
 * runner); with them, several services in one process share one build.
 */
export function serviceFactory(host: HostName, registries?: ServiceRegistries): ServiceFactory {
  return (config, logger, store) => {
    const built = registries ?? serviceRegistries();
    switch (host) {
      case 'chaos': {
        const chaos = new ChaosServer({ config, logger, registry: built.chaos, store });
        // TLS chaos runs where TLS_DIR names the directory that keeps its test root (docs/tls.md).
        return config.tls.dir === undefined ? chaos : new ChaosTlsService(chaos, logger);
      }
      case 'control': {
        // The control process also answers for the hub: its `/` there lists all three hosts, its /compare fetches chaos paths beside their twins.
        const hubCatalogs = [buildCatalog(built.chaos, config), buildCatalog(built.control, config), buildCatalog(built.bots, config)];
        const control = new HttpService({ host: 'control', config, logger, registry: built.control, store, hubCatalogs, chaosRoutes: built.chaos });
        // Its twins over TLS (ALPN h2) where CONTROL_TLS_PORT is set beside TLS_DIR (docs/http2.md).
        return config.tls.dir === undefined || config.tls.controlPort === undefined ? control : new ControlTlsService(control, logger);
      }
      case 'bots':
        return new HttpService({ host: 'bots', config, logger, registry: built.bots, store });
    }
  };
}
