import { FILE_PATHS } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'web-manifest',
  path: FILE_PATHS.manifest,
  summary: 'PWA manifest (application/manifest+json): name, start_url inside scope, standalone, 192 and 512 px icons that resolve',
  type: 'application/manifest+json',
  body: 'manifest',
  sitemap: true,
});
