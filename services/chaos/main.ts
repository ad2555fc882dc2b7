import { runService } from '../../shared/runtime/run.js';
import { serviceFactory } from '../service-factories.js';

void runService('chaos', serviceFactory('chaos'), (c) => c.ports.chaos);
