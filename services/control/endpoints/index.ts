// The control host's registry: well-formed twins, in catalog order.
import type { HttpContext, HttpEndpoint } from '../../../shared/http-service.js';
import { Registry } from '../../../shared/registry.js';
import adsTxt from './crawler-files/ads-txt.js';
import aiTxt from './crawler-files/ai-txt.js';
import appIcon from './crawler-files/app-icon.js';
import appleAppSiteAssociation from './crawler-files/apple-app-site-association.js';
import assetlinks from './crawler-files/assetlinks.js';
import atprotoDid from './crawler-files/atproto-did.js';
import didJson from './crawler-files/did-json.js';
import gpcJson from './crawler-files/gpc-json.js';
import humansTxt from './crawler-files/humans-txt.js';
import llmsTxt from './crawler-files/llms-txt.js';
import nodeinfo20 from './crawler-files/nodeinfo-2-0.js';
import nodeinfo from './crawler-files/nodeinfo.js';
import robotsTxt from './crawler-files/robots-txt.js';
import securityContact from './crawler-files/security-contact.js';
import securityTxt from './crawler-files/security-txt.js';
import sitemapXml from './crawler-files/sitemap-xml.js';
import webManifest from './crawler-files/web-manifest.js';
import webfinger from './crawler-files/webfinger.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import bytes from './payload/bytes.js';
import partialStream from './payload/partial-stream.js';
import truncate from './payload/truncate.js';

/** The control files of SPEC §4.2 and their app-linking and identity companions (docs/crawler-and-federation-files.md). */
export const crawlerFileEndpoints: readonly HttpEndpoint[] = [
  robotsTxt, sitemapXml, aiTxt, llmsTxt,
  appleAppSiteAssociation, assetlinks, webManifest, appIcon,
  atprotoDid, didJson, webfinger, nodeinfo, nodeinfo20,
  securityTxt, securityContact, adsTxt, humansTxt, gpcJson,
];

export const controlEndpoints: readonly HttpEndpoint[] = [slow, drip, truncate, partialStream, bytes, ...crawlerFileEndpoints];

export function createControlRegistry(): Registry<HttpContext> {
  return new Registry('control', controlEndpoints);
}
