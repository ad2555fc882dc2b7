import { FILE_PATHS, JSON_TYPE } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'nodeinfo',
  path: FILE_PATHS.nodeinfo,
  summary: 'NodeInfo discovery: links[0] has rel http://nodeinfo.diaspora.software/ns/schema/2.0 and href /nodeinfo/2.0 on this host',
  type: JSON_TYPE,
  body: 'nodeinfo',
  sitemap: true,
});
