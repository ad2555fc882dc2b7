import { runService } from '../../shared/runtime/run.js';
import { serviceRegistries } from '../registries.js';
import { ChaosServer } from './server.js';

void runService('chaos', (config, logger, store) => new ChaosServer({ config, logger, registry: serviceRegistries().chaos, store }), (c) => c.ports.chaos);
