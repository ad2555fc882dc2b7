import { HttpService } from '../../shared/http/http-service.js';
import { runService } from '../../shared/runtime/run.js';
import { serviceRegistries } from '../registries.js';

void runService('bots', (config, logger, store) => new HttpService({ host: 'bots', config, logger, registry: serviceRegistries().bots, store }), (c) => c.ports.bots);
