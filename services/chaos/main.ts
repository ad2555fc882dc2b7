import { runService } from '../../shared/run.js';
import { createChaosRegistry } from './endpoints/index.js';
import { ChaosServer } from './server.js';

void runService('chaos', (config, logger) => new ChaosServer({ config, logger, registry: createChaosRegistry() }), (c) => c.ports.chaos);
