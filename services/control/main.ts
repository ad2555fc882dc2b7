import { runService } from '../../shared/runtime/run.js';
import { serviceFactory } from '../service-factories.js';

void runService('control', serviceFactory('control'), (c) => c.ports.control);
