import { FILE_PATHS, TEXT } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'robots-txt',
  path: FILE_PATHS.robots,
  summary: 'robots.txt: allow-all, explicit allows for the major AI crawlers by name, Disallow: /infinite/, a Sitemap line',
  type: TEXT,
  body: 'robots',
  sitemap: true,
});
