import { NODEINFO_20_REL } from '../../../../shared/content/federated-identity.js';
import { chaosFile, json } from '../file.js';

export const HTTPS_REL = NODEINFO_20_REL.replace('http://', 'https://');
export const REL_21 = 'http://nodeinfo.diaspora.software/ns/schema/2.1';

export default chaosFile({
  id: 'nodeinfo',
  path: '/.well-known/nodeinfo',
  category: 'federated-identity',
  file: 'nodeinfo',
  sitemap: true,
  summary: 'NodeInfo discovery that leads astray: an https rel, an href on another host, a dead href, a rel that contradicts its href, links not a list',
  lies: {
    'wrong-rel': `rel is ${HTTPS_REL} (the registered rel is http://)`,
    'other-host': 'href points at /nodeinfo/2.0 on the control host',
    'dead-href': 'href /nodeinfo/2.1 answers 404',
    'rel-href-mismatch': 'rel claims schema 2.1; href is /nodeinfo/2.0, a 2.0 document',
    'links-not-array': 'links is one object, not an array',
  },
  aliases: { 'bad-link': 'dead-href', 'version-mismatch': 'rel-href-mismatch', 'cross-host': 'other-host' },
  build: (site) => {
    const href = `${site.bots}/nodeinfo/2.0`;
    return {
      'wrong-rel': json({ links: [{ rel: HTTPS_REL, href }] }),
      'other-host': json({ links: [{ rel: NODEINFO_20_REL, href: `${site.control}/nodeinfo/2.0` }] }),
      'dead-href': json({ links: [{ rel: REL_21, href: `${site.bots}/nodeinfo/2.1` }] }),
      'rel-href-mismatch': json({ links: [{ rel: REL_21, href }] }),
      'links-not-array': json({ links: { rel: NODEINFO_20_REL, href } }),
    };
  },
});
