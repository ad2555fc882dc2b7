import { iconEntries, webManifest } from '../../../../shared/content/app-linking.js';
import { prettyJson } from '../../../../shared/content/crawler-files/index.js';
import { chaosFile, DEAD_PREFIX, HTML, json, reply, type FileReply } from '../file.js';

const MANIFEST = 'application/manifest+json';
const manifest = (value: unknown): FileReply => json(value, MANIFEST);

export default chaosFile({
  id: 'web-manifest',
  path: '/manifest.webmanifest',
  category: 'app-linking',
  file: 'manifest.webmanifest',
  summary: 'Web app manifests that install wrong or not at all: dead icons, icons smaller than declared, start_url outside scope or origin, no name, invalid JSON, an HTML label, contradictory display, invalid colors, names of two apps, no icons',
  lies: {
    'dead-icons': 'both icons answer 404',
    'icon-size-lies': 'icons declared 192x192 and 512x512 are 16x16 PNGs',
    'scope-excludes-start-url': 'start_url / lies outside scope /app/ (browsers then drop the scope)',
    'cross-origin-start-url': 'start_url is on the control host, another origin (browsers ignore it)',
    'missing-name': 'neither name nor short_name (not installable)',
    'invalid-json': 'single-quoted strings',
    'wrong-content-type': 'a valid manifest labelled text/html (browsers parse it anyway; validators flag it)',
    'contradictory-display': 'display fullscreen with display_override ["browser"]: the override, which wins, asks for an ordinary tab',
    'invalid-colors': 'theme_color #12345G and background_color "bluish": not CSS colors (browsers ignore both)',
    'name-mismatch': 'short_name names another app ("Other App") than name',
    'missing-icons': 'no icons member at all (Chromium does not offer to install it)',
  },
  aliases: { 'malformed-json': 'invalid-json', 'wrong-start-url': 'cross-origin-start-url' },
  build: (site) => {
    // The correct bots-host manifest; each mode changes only what its lie names.
    // Every mode but the icon ones keeps the control icons (see webManifest).
    const base = webManifest(site, 'bots');
    const { name: _name, short_name: _short, ...nameless } = base;
    const { icons: _icons, ...iconless } = base;
    return {
      'dead-icons': manifest({ ...base, icons: iconEntries(`${site.bots}${DEAD_PREFIX}`) }),
      'icon-size-lies': manifest({
        ...base,
        icons: iconEntries(site.bots).map((icon) => ({ ...icon, src: `${icon.src}&mode=wrong-size` })),
      }),
      'scope-excludes-start-url': manifest({ ...base, scope: `${site.bots}/app/` }),
      'cross-origin-start-url': manifest({ ...base, start_url: `${site.control}/` }),
      'missing-name': manifest(nameless),
      // The correct manifest with every string single-quoted (none holds a quote).
      'invalid-json': reply(MANIFEST, prettyJson(base).replace(/"/g, "'")),
      'wrong-content-type': json(base, HTML),
      'contradictory-display': manifest({ ...base, display: 'fullscreen', display_override: ['browser'] }),
      'invalid-colors': manifest({ ...base, theme_color: '#12345G', background_color: 'bluish' }),
      'name-mismatch': manifest({ ...base, short_name: 'Other App' }),
      'missing-icons': manifest(iconless),
    };
  },
});
