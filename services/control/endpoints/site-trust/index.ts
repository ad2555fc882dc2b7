// The control host's site-trust folder: its endpoints, listed once, in catalog order (twins mirror services/bots/endpoints/site-trust/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import adsTxt from './ads-txt.js';
import gpcJson from './gpc-json.js';
import humansTxt from './humans-txt.js';
import securityContact from './security-contact.js';
import securityTxt from './security-txt.js';

const endpoints: readonly HttpEndpoint[] = [securityTxt, securityContact, adsTxt, humansTxt, gpcJson];
export default endpoints;
