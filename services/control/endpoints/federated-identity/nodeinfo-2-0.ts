import { NODEINFO_20_PROFILE } from '../../../../shared/content/federated-identity.js';
import { FILE_PATHS } from '../../../../shared/content/crawler-files/index.js';
import { controlFile } from '../file.js';

export default controlFile({
  id: 'nodeinfo-2-0',
  path: FILE_PATHS.nodeinfo20,
  summary: 'Schema-valid NodeInfo 2.0: software name and version, usage statistics, openRegistrations',
  type: NODEINFO_20_PROFILE,
  body: 'nodeinfo20',
  sitemap: true,
});
