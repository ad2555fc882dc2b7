import { FILE_PATHS, JSON_TYPE } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'gpc-json',
  path: FILE_PATHS.gpc,
  summary: 'Global Privacy Control support resource: {"gpc": true, "lastUpdate": today}',
  type: JSON_TYPE,
  body: 'gpc',
  sitemap: true,
});
