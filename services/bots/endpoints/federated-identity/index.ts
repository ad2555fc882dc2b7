// The bots host's federated-identity folder: its endpoints, listed once, in catalog order.
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import atprotoDid from './atproto-did.js';
import didJson from './did-json.js';
import nodeinfo from './nodeinfo.js';
import nodeinfo20 from './nodeinfo-2-0.js';
import webfinger from './webfinger.js';

const endpoints: readonly HttpEndpoint[] = [atprotoDid, didJson, webfinger, nodeinfo, nodeinfo20];
export default endpoints;
