import { FILE_PATHS, TEXT } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'ai-txt',
  path: FILE_PATHS.ai,
  summary: 'ai.txt in robots.txt syntax: each major AI crawler allowed by name, the same policy as robots.txt, nothing contradicts',
  type: TEXT,
  body: 'ai',
  sitemap: true,
});
