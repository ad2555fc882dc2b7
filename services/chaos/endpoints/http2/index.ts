// The chaos host's http2 folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import h2Flow from './h2-flow.js';
import h2Frames from './h2-frames.js';
import h2Goaway from './h2-goaway.js';
import h2Headers from './h2-headers.js';
import h2Push from './h2-push.js';
import h2Rst from './h2-rst.js';
import h2Settings from './h2-settings.js';
import h2Stall from './h2-stall.js';
import h2Upgrade from './h2-upgrade.js';
import h2UploadStall from './h2-upload-stall.js';

const endpoints: readonly ChaosEndpoint[] = [h2Rst, h2Goaway, h2Stall, h2UploadStall, h2Flow, h2Settings, h2Frames, h2Headers, h2Push, h2Upgrade];
export default endpoints;
