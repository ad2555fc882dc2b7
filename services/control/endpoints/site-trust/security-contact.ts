import { FILE_PATHS } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'security-contact',
  path: FILE_PATHS.securityPage,
  summary: "The page security.txt names as Contact (HTML); its bots twin is the chaotic security.txt",
  type: 'text/html; charset=utf-8',
  body: 'securityPage',
  sitemap: true,
  counterpart: FILE_PATHS.security,
});
