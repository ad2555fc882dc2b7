import { FILE_PATHS, TEXT } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'ads-txt',
  path: FILE_PATHS.ads,
  summary: 'Minimal valid ads.txt: one authorised-seller record with a DIRECT relationship',
  type: TEXT,
  body: 'ads',
  sitemap: true,
});
