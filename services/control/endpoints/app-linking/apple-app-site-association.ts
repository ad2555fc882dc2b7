import { FILE_PATHS, JSON_TYPE } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'apple-app-site-association',
  path: FILE_PATHS.aasa,
  summary: 'apple-app-site-association as application/json, no redirect, no extension: applinks.details[].appIDs/components, webcredentials',
  type: JSON_TYPE,
  body: 'aasa',
  sitemap: true,
});
