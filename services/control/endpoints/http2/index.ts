// The control host's http2 folder: the node:http2 twins of the chaos /h2/*
// lies (issue 28, docs/http2.md), listed once, in catalog order.
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
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

const endpoints: readonly HttpEndpoint[] = [h2Rst, h2Goaway, h2Settings, h2Frames, h2Headers, h2Stall, h2UploadStall, h2Flow, h2Push, h2Upgrade];
export default endpoints;
