import { SECURITY_TXT_LIFETIME_DAYS } from '../../../../shared/content/site-trust.js';
import { rfc3339 } from '../../../../shared/content/crawler-files/index.js';
import { chaosFile, DEAD_PREFIX, HTML, reply, text } from '../file.js';

export const EXPIRED = '2020-01-01T00:00:00Z';
const DAY_MS = 86_400_000;

export default chaosFile({
  id: 'security-txt',
  path: '/.well-known/security.txt',
  category: 'site-trust',
  file: 'security.txt',
  sitemap: true,
  summary: 'RFC 9116 security.txt that fails validation: expired, a dead Contact, a foreign Canonical, a signature it lacks, no Expires, two Expires, an HTML label',
  lies: {
    expired: `Expires ${EXPIRED}, in the past`,
    'dead-contact': 'the Contact URL answers 404',
    'canonical-mismatch': "Canonical names the control host's URL, not the URL served",
    'unsigned-claim': 'opens with -----BEGIN PGP SIGNED MESSAGE----- and never carries the signature',
    'missing-expires': 'no Expires field (RFC 9116: required)',
    'duplicate-expires': 'two Expires fields with different dates (RFC 9116: exactly once)',
    'wrong-content-type': 'a valid file labelled text/html',
  },
  build: (site, day) => {
    const expires = `Expires: ${rfc3339(day.midnightMs + SECURITY_TXT_LIFETIME_DAYS * DAY_MS)}\n`;
    const contact = `Contact: ${site.control}/security\n`;
    const canonical = `Canonical: ${site.bots}/.well-known/security.txt\n`;
    const file = (fields: string) => `# security.txt of ${site.bots}\n${fields}`;
    return {
      expired: text(file(`${contact}Expires: ${EXPIRED}\n${canonical}`)),
      'dead-contact': text(file(`Contact: ${site.bots}${DEAD_PREFIX}/security-contact\n${expires}${canonical}`)),
      'canonical-mismatch': text(file(`${contact}${expires}Canonical: ${site.control}/.well-known/security.txt\n`)),
      'unsigned-claim': text(`-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n${file(`${contact}${expires}${canonical}`)}`),
      'missing-expires': text(file(`${contact}${canonical}`)),
      'duplicate-expires': text(file(`${contact}${expires}Expires: ${rfc3339(day.midnightMs + 30 * DAY_MS)}\n${canonical}`)),
      'wrong-content-type': reply(HTML, file(`${contact}${expires}${canonical}`)),
    };
  },
});
