import { runService } from '../../shared/run.js';
import { serviceFactory } from '../service-factories.js';

void runService('control', serviceFactory('control'), (c) => c.ports.control);
