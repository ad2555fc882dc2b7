// The bots host's site-trust folder: its endpoints, listed once, in catalog order.
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import adsTxt from './ads-txt.js';
import gpcJson from './gpc-json.js';
import humansTxt from './humans-txt.js';
import securityTxt from './security-txt.js';
import securityTxtLegacy from './security-txt-legacy.js';

const endpoints: readonly HttpEndpoint[] = [securityTxt, securityTxtLegacy, adsTxt, humansTxt, gpcJson];
export default endpoints;
