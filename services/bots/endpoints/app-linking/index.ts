// The bots host's app-linking folder: its endpoints, listed once, in catalog order.
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import appIcon from './app-icon.js';
import appleAppSiteAssociation from './apple-app-site-association.js';
import assetlinks from './assetlinks.js';
import webManifest from './web-manifest.js';

const endpoints: readonly HttpEndpoint[] = [appleAppSiteAssociation, assetlinks, webManifest, appIcon];
export default endpoints;
