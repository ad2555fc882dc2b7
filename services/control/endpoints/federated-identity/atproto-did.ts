import { FILE_PATHS, TEXT } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'atproto-did',
  path: FILE_PATHS.atprotoDid,
  summary: 'atproto handle resolution: one line, the did:web of this host, nothing else',
  type: TEXT,
  body: 'atprotoDid',
  sitemap: true,
});
