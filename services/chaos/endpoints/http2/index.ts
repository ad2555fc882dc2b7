// The chaos host's http2 folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import h2Frames from './h2-frames.js';
import h2Goaway from './h2-goaway.js';
import h2Headers from './h2-headers.js';
import h2Rst from './h2-rst.js';
import h2Settings from './h2-settings.js';

const endpoints: readonly ChaosEndpoint[] = [h2Rst, h2Goaway, h2Settings, h2Frames, h2Headers];
export default endpoints;
