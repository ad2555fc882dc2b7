import { nodeinfo20, NODEINFO_20_PROFILE, SOFTWARE } from '../../../../shared/content/federated-identity.js';
import { prettyJson } from '../../../../shared/content/crawler-files/index.js';
import { chaosFile, HTML, json, reply } from '../file.js';

/** Stands for NaN while the document is serialised (JSON.stringify has no NaN). */
const NAN_MARK = 'localPosts-NaN';

export default chaosFile({
  id: 'nodeinfo-2-0',
  path: '/nodeinfo/2.0',
  category: 'federated-identity',
  file: 'nodeinfo/2.0',
  sitemap: true,
  summary: 'NodeInfo 2.0 documents that break the schema: bad field types and patterns, a version that contradicts the path, missing required fields, NaN, an HTML label',
  lies: {
    'schema-invalid': 'software.name has capitals and a space, usage.users.total is -1, openRegistrations is the string "yes"',
    'version-contradicts-path': 'version "2.1" (with the 2.1-only software.repository) served at /nodeinfo/2.0',
    'missing-required': 'no protocols, services, usage or metadata',
    'invalid-json': 'localPosts is NaN, which JSON does not have',
    'wrong-content-type': 'a valid document labelled text/html',
  },
  aliases: { 'malformed-json': 'invalid-json', 'version-mismatch': 'version-contradicts-path' },
  build: (site) => {
    const valid = nodeinfo20('bots');
    const profile = (value: unknown) => json(value, NODEINFO_20_PROFILE);
    return {
      'schema-invalid': profile({
        ...valid,
        software: { name: 'Chaos Endpoint Service', version: SOFTWARE.version },
        usage: { users: { total: -1, activeHalfyear: 0, activeMonth: 0 }, localPosts: 0, localComments: 0 },
        openRegistrations: 'yes',
      }),
      'version-contradicts-path': profile({ ...valid, version: '2.1', software: { ...SOFTWARE, repository: `${site.bots}/` } }),
      'missing-required': profile({ version: '2.0', software: valid.software, openRegistrations: false }),
      // The valid document with one token JSON lacks in place of localPosts.
      'invalid-json': reply(
        NODEINFO_20_PROFILE,
        prettyJson({ ...valid, usage: { ...(valid.usage as object), localPosts: NAN_MARK } }).replace(`"${NAN_MARK}"`, 'NaN'),
      ),
      'wrong-content-type': json(valid, HTML),
    };
  },
});
