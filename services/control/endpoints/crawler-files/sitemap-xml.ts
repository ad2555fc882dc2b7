import { FILE_PATHS } from '../../../../shared/content/crawler-files/documents.js';
import { controlFile } from './file.js';

export default controlFile({
  id: 'sitemap-xml',
  path: FILE_PATHS.sitemap,
  summary: "Valid XML sitemap (sitemaps.org 0.9) of this host's files, each URL resolving, lastmod today",
  type: 'application/xml; charset=utf-8',
  body: 'sitemap',
});
