import { FILE_PATHS, TEXT } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'security-txt',
  path: FILE_PATHS.security,
  summary: 'RFC 9116 security.txt: Expires 180 days ahead, a Contact URL that answers 200, Canonical equal to this URL',
  type: TEXT,
  body: 'security',
  sitemap: true,
});
