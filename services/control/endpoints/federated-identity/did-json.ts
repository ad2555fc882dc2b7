import { FILE_PATHS, JSON_TYPE } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'did-json',
  path: FILE_PATHS.didJson,
  summary: "The did:web document atproto-did's DID resolves to: matching id, alsoKnownAs at://<this host>",
  type: JSON_TYPE,
  body: 'didJson',
  sitemap: true,
});
