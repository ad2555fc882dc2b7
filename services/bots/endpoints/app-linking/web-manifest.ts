import { iconEntries, webManifest } from '../../../control/endpoints/crawler-files/documents.js';
import { chaosFile, DEAD_PREFIX, HTML, json, reply, type FileReply } from '../file.js';

const MANIFEST = 'application/manifest+json';
const manifest = (value: unknown): FileReply => json(value, MANIFEST);

export default chaosFile({
  id: 'web-manifest',
  path: '/manifest.webmanifest',
  category: 'app-linking',
  file: 'manifest.webmanifest',
  summary: 'Web app manifests that install wrong or not at all: dead icons, icons smaller than declared, start_url outside scope or origin, no name, invalid JSON, an HTML label',
  lies: {
    'dead-icons': 'both icons answer 404',
    'icon-size-lies': 'icons declared 192x192 and 512x512 are 16x16 PNGs',
    'scope-excludes-start-url': 'start_url / lies outside scope /app/ (browsers then drop the scope)',
    'cross-origin-start-url': 'start_url is on the control host, another origin (browsers ignore it)',
    'missing-name': 'neither name nor short_name (not installable)',
    'invalid-json': 'single-quoted strings',
    'wrong-content-type': 'a valid manifest labelled text/html (browsers parse it anyway; validators flag it)',
  },
  build: (site) => {
    // Every mode but the icon ones uses the control icons, so each mode tells one lie.
    const base = { ...webManifest(site), id: `${site.bots}/`, start_url: `${site.bots}/`, scope: `${site.bots}/`, name: 'Chaos Endpoint Service: bots host', short_name: 'Chaos bots' };
    const { name: _name, short_name: _short, ...nameless } = base;
    return {
      'dead-icons': manifest({ ...base, icons: iconEntries(`${site.bots}${DEAD_PREFIX}`) }),
      'icon-size-lies': manifest({
        ...base,
        icons: iconEntries(site.bots).map((icon) => ({ ...icon, src: `${icon.src}&mode=wrong-size` })),
      }),
      'scope-excludes-start-url': manifest({ ...base, scope: `${site.bots}/app/` }),
      'cross-origin-start-url': manifest({ ...base, start_url: `${site.control}/` }),
      'missing-name': manifest(nameless),
      'invalid-json': reply(MANIFEST, `{'name': 'Chaos bots', 'start_url': '${site.bots}/', 'display': 'standalone'}\n`),
      'wrong-content-type': json(base, HTML),
    };
  },
});
