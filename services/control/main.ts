import { buildCatalog } from '../../shared/catalog/catalog.js';
import { HttpService } from '../../shared/http/http-service.js';
import { runService } from '../../shared/runtime/run.js';
import { serviceRegistries } from '../registries.js';

void runService(
  'control',
  (config, logger, store) => {
    const registries = serviceRegistries();
    // The control process also answers for the hub: its `/` there lists all three hosts, its /compare fetches chaos paths beside their twins.
    const hubCatalogs = [buildCatalog(registries.chaos, config), buildCatalog(registries.control, config), buildCatalog(registries.bots, config)];
    return new HttpService({ host: 'control', config, logger, registry: registries.control, store, hubCatalogs, chaosRoutes: registries.chaos });
  },
  (c) => c.ports.control,
);
