import { FILE_PATHS, JSON_TYPE } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'assetlinks',
  path: FILE_PATHS.assetlinks,
  summary: 'Digital Asset Links statement list: handle_all_urls for android_app com.example.chaos, one 32-byte SHA-256 fingerprint',
  type: JSON_TYPE,
  body: 'assetlinks',
  sitemap: true,
});
