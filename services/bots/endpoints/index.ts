// The bots host's registry: chaotic crawler, app-linking, federated-identity
// and site-trust files, each the twin of a well-formed control file at the
// same path (README: Crawler, app-linking and federated files).
import type { HttpContext, HttpEndpoint } from '../../../shared/http/http-service.js';
import { Registry } from '../../../shared/registry/registry.js';
import appIcon from './app-linking/app-icon.js';
import appleAppSiteAssociation from './app-linking/apple-app-site-association.js';
import assetlinks from './app-linking/assetlinks.js';
import webManifest from './app-linking/web-manifest.js';
import aiTxt from './crawler-files/ai-txt.js';
import llmsTxt from './crawler-files/llms-txt.js';
import robotsTxt from './crawler-files/robots-txt.js';
import sitemapXml from './crawler-files/sitemap-xml.js';
import atprotoDid from './federated-identity/atproto-did.js';
import didJson from './federated-identity/did-json.js';
import nodeinfo20 from './federated-identity/nodeinfo-2-0.js';
import nodeinfo from './federated-identity/nodeinfo.js';
import webfinger from './federated-identity/webfinger.js';
import adsTxt from './site-trust/ads-txt.js';
import gpcJson from './site-trust/gpc-json.js';
import humansTxt from './site-trust/humans-txt.js';
import securityTxtLegacy from './site-trust/security-txt-legacy.js';
import securityTxt from './site-trust/security-txt.js';

export const botsEndpoints: readonly HttpEndpoint[] = [
  robotsTxt, sitemapXml, aiTxt, llmsTxt,
  appleAppSiteAssociation, assetlinks, webManifest, appIcon,
  atprotoDid, didJson, webfinger, nodeinfo, nodeinfo20,
  securityTxt, securityTxtLegacy, adsTxt, humansTxt, gpcJson,
];

export function createBotsRegistry(): Registry<HttpContext> {
  return new Registry('bots', botsEndpoints);
}
