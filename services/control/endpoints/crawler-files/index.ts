// The control host's crawler-files folder: its endpoints, listed once, in catalog order (twins mirror services/bots/endpoints/crawler-files/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import aiTxt from './ai-txt.js';
import llmsTxt from './llms-txt.js';
import robotsTxt from './robots-txt.js';
import sitemapXml from './sitemap-xml.js';

const endpoints: readonly HttpEndpoint[] = [robotsTxt, sitemapXml, aiTxt, llmsTxt];
export default endpoints;
