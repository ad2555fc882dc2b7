import { HttpService } from '../../shared/http-service.js';
import { runService } from '../../shared/run.js';
import { serviceRegistries } from '../registries.js';

void runService(
  'control',
  (config, logger, store) => new HttpService({ host: 'control', config, logger, registry: serviceRegistries().control, store }),
  (c) => c.ports.control,
);
