import { FILE_PATHS, TEXT } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'humans-txt',
  path: FILE_PATHS.humans,
  summary: 'humans.txt with TEAM and SITE sections, no recursion, real dates (Last update is today)',
  type: TEXT,
  body: 'humans',
  sitemap: true,
});
