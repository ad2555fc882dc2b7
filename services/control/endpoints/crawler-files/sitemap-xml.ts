import { controlSitemap, FILE_PATHS } from '../../../../shared/content/crawler-files/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'sitemap-xml',
  path: FILE_PATHS.sitemap,
  category: 'crawler-files',
  summary: "Valid XML sitemap (sitemaps.org 0.9) of this host's files, each URL resolving, lastmod today",
  params: {},
  counterpart: { host: 'bots' },
  handle(ctx) {
    // The pages are the registry's (`sitemap: true`), so the body depends on it too.
    ctx.send(200, 'application/xml; charset=utf-8', controlSitemap(ctx.registry)(ctx.config));
  },
});
