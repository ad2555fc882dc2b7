// The control host's registry: well-formed twins, in catalog order.
import type { HttpContext, HttpEndpoint } from '../../../shared/http-service.js';
import { Registry } from '../../../shared/registry.js';
import infinite from './infinite/infinite.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import bytes from './payload/bytes.js';
import partialStream from './payload/partial-stream.js';
import truncate from './payload/truncate.js';

export const controlEndpoints: readonly HttpEndpoint[] = [slow, drip, truncate, partialStream, bytes, infinite];

export function createControlRegistry(): Registry<HttpContext> {
  return new Registry('control', controlEndpoints);
}
