import { rfc3339 } from '../../../../shared/content/crawler-files/index.js';
import { chaosFile, redirect, text } from '../file.js';

export default chaosFile({
  id: 'security-txt-legacy',
  path: '/security.txt',
  category: 'site-trust',
  file: 'security.txt (legacy path)',
  summary: 'security.txt at the legacy top-level path: contradicting /.well-known/security.txt, redirecting off the site, or redirecting to itself',
  counterpart: '/.well-known/security.txt',
  lies: {
    'contradicts-well-known': 'another Contact and Expires than /.well-known/security.txt, which RFC 9116 says takes precedence',
    'redirect-other-host': "301 to the control host's /.well-known/security.txt: the redirect leaves the site",
    'redirect-loop': '302 to this same URL, for ever',
  },
  build: (site, day) => ({
    'contradicts-well-known': text(
      `# security.txt of ${site.bots} (legacy path)\nContact: ${site.bots}/humans.txt\n` +
        `Expires: ${rfc3339(day.midnightMs + 90 * 86_400_000)}\nCanonical: ${site.bots}/security.txt\n`,
    ),
    'redirect-other-host': redirect(301, `${site.control}/.well-known/security.txt`),
    'redirect-loop': redirect(302, `${site.bots}/security.txt?mode=redirect-loop`),
  }),
});
