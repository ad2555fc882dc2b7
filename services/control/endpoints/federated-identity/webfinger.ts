import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { FILE_PATHS, perConfigDaily } from '../../../../shared/content/crawler-files/index.js';
import { WEBFINGER_PARAMS, webfingerAccount, webfingerJrd } from '../../../../shared/content/federated-identity.js';

const known = perConfigDaily((site) => ({
  resources: new Set([webfingerAccount('control', site.controlHostname), `${site.control}/`, site.control]),
  jrd: webfingerJrd(site),
}));

export default defineControlEndpoint({
  id: 'webfinger',
  path: FILE_PATHS.webfinger,
  category: 'crawler-files',
  summary: 'RFC 7033 WebFinger for acct:control@<this host>: a JRD (application/jrd+json) with the host URL as alias; 404 for any other resource',
  params: WEBFINGER_PARAMS,
  headers: ['Access-Control-Allow-Origin'],
  counterpart: { host: 'bots' },
  docs: {
    // The account this host knows (any other resource is an honest 404).
    example: (config) => ({ target: `${FILE_PATHS.webfinger}?resource=${encodeURIComponent(webfingerAccount('control', new URL(config.urls.control).hostname))}` }),
  },
  handle(ctx, { resource, rel }) {
    const { resources, jrd } = known(ctx.config);
    // RFC 7033 §5.1: servers SHOULD allow any origin.
    const cors: [string, string][] = [['Access-Control-Allow-Origin', '*']];
    if (!resources.has(resource)) {
      ctx.send(404, 'application/json', jsonBody({ error: 'unknown_resource', resource }), undefined, cors);
      return;
    }
    const links = (jrd.links as { rel: string }[]).filter((link) => rel === undefined || link.rel === rel);
    ctx.send(200, 'application/jrd+json', jsonBody({ ...jrd, links }), undefined, cors);
  },
});
