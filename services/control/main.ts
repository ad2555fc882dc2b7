import { HttpService } from '../../shared/http-service.js';
import { runService } from '../../shared/run.js';
import { createControlRegistry } from './endpoints/index.js';

void runService(
  'control',
  (config, logger) => new HttpService({ host: 'control', config, logger, registry: createControlRegistry() }),
  (c) => c.ports.control,
);
