import { HttpService } from '../../shared/http-service.js';
import { runService } from '../../shared/run.js';
import { createControlRegistry } from './endpoints/index.js';

void runService(
  'control',
  (config, logger, store) => new HttpService({ host: 'control', config, logger, registry: createControlRegistry(), store }),
  (c) => c.ports.control,
);
