import { FILE_PATHS } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'llms-txt',
  path: FILE_PATHS.llms,
  summary: 'llms.txt: one H1, a short blockquote description, a list of links that all resolve on this host',
  type: 'text/markdown; charset=utf-8',
  body: 'llms',
  sitemap: true,
});
