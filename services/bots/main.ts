import { HttpService } from '../../shared/http-service.js';
import { runService } from '../../shared/run.js';
import { createBotsRegistry } from './endpoints/index.js';

void runService('bots', (config, logger, store) => new HttpService({ host: 'bots', config, logger, registry: createBotsRegistry(), store }), (c) => c.ports.bots);
