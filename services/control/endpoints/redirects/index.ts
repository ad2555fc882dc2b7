// The control host's redirects folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/redirects/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import redirectChain from './redirect-chain.js';
import redirectCrossHost from './redirect-cross-host.js';
import redirectKinds from './redirect-kinds.js';
import redirectKindsTarget from './redirect-kinds-target.js';
import redirectLocation from './redirect-location.js';
import redirectLocationFinal from './redirect-location-final.js';
import redirectLoop from './redirect-loop.js';

const endpoints: readonly HttpEndpoint[] = [
  redirectChain,
  redirectLoop,
  redirectKinds,
  redirectKindsTarget,
  redirectLocation,
  redirectLocationFinal,
  redirectCrossHost,
];
export default endpoints;
