import { assetLinks, HANDLE_ALL_URLS, ANDROID_PACKAGE, CERT_FINGERPRINT } from '../../../../shared/content/app-linking.js';
import { chaosFile, HTML, json, JSON_TYPE, redirect, reply } from '../file.js';

/** The control fingerprint without its last byte: 31 bytes. */
export const SHORT_FINGERPRINT = CERT_FINGERPRINT.slice(0, -3);
export const WRONG_PACKAGE = `${ANDROID_PACKAGE}.debug`;
export const WRONG_RELATION = HANDLE_ALL_URLS.slice(0, -1);

function statement(relation: string, pkg: string, fingerprint: string): Record<string, unknown> {
  return { relation: [relation], target: { namespace: 'android_app', package_name: pkg, sha256_cert_fingerprints: [fingerprint] } };
}

export default chaosFile({
  id: 'assetlinks',
  path: '/.well-known/assetlinks.json',
  category: 'app-linking',
  file: 'assetlinks.json',
  summary: 'Digital Asset Links that fail Android verification: a 31-byte fingerprint, another package, a misspelt relation, no list, invalid JSON, a redirect, an HTML label',
  lies: {
    'short-fingerprint': 'the SHA-256 certificate fingerprint has 31 bytes, not 32',
    'wrong-package': `package_name is ${WRONG_PACKAGE}, not the app's ${ANDROID_PACKAGE}`,
    'wrong-relation': `relation is ${WRONG_RELATION} (missing the final s)`,
    'not-array': 'a single statement object instead of a statement list (a JSON array)',
    'invalid-json': 'a trailing comma after the last statement',
    redirect: "301 to the control host's file (Android verifies without following redirects)",
    'wrong-content-type': 'a valid statement list labelled text/html',
  },
  aliases: { 'malformed-json': 'invalid-json' },
  build: (site) => {
    const valid = assetLinks();
    const good = JSON.stringify(valid[0], null, 2);
    return {
      'short-fingerprint': json([statement(HANDLE_ALL_URLS, ANDROID_PACKAGE, SHORT_FINGERPRINT)]),
      'wrong-package': json([statement(HANDLE_ALL_URLS, WRONG_PACKAGE, CERT_FINGERPRINT)]),
      'wrong-relation': json([statement(WRONG_RELATION, ANDROID_PACKAGE, CERT_FINGERPRINT)]),
      'not-array': json(valid[0]),
      'invalid-json': reply(JSON_TYPE, `[\n${good},\n]\n`),
      redirect: redirect(301, `${site.control}/.well-known/assetlinks.json`),
      'wrong-content-type': json(valid, HTML),
    };
  },
});
