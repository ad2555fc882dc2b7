import { runService } from '../../shared/run.js';
import { serviceRegistries } from '../registries.js';
import { ChaosServer } from './server.js';

void runService('chaos', (config, logger) => new ChaosServer({ config, logger, registry: serviceRegistries().chaos }), (c) => c.ports.chaos);
