import { runService } from '../../shared/run.js';
import { createChaosRegistry } from './endpoints/index.js';
import { ChaosServer } from './server.js';

void runService('chaos', (config, logger, store) => new ChaosServer({ config, logger, registry: createChaosRegistry(), store }), (c) => c.ports.chaos);
