import { runService } from '../../shared/runtime/run.js';
import { serviceFactory } from '../service-factories.js';

void runService('bots', serviceFactory('bots'), (c) => c.ports.bots);
