import { appleAppSiteAssociation, APP_BUNDLE_ID, APPLE_APP_ID } from '../../../../shared/content/app-linking.js';
import { prettyJson } from '../../../../shared/content/crawler-files/index.js';
import { chaosFile, DEAD_PREFIX, json, JSON_TYPE, redirect, reply } from '../file.js';

/** Apple's CDN refuses an apple-app-site-association file over 128 KB. */
export const AASA_SIZE_LIMIT = 128 * 1024;
export const BAD_TEAM_ID = 'chaosteam';

/** Valid JSON past the limit: the control document's components padded out. URL-free, built once. */
const TOO_LARGE: Buffer = (() => {
  const doc = appleAppSiteAssociation() as { applinks: { details: { components: unknown[] }[] } };
  const components = (doc.applinks.details[0] as { components: unknown[] }).components;
  const padding = (i: number) => ({ '/': `/generated/${String(i).padStart(5, '0')}/*`, comment: 'padding past the 128 KB limit' });
  // Every padding entry pretty-prints to the same length, so the count comes from two measurements
  // (re-serialising the document after each push took half a second at every start).
  const target = AASA_SIZE_LIMIT + 8192;
  const bare = prettyJson(doc).length;
  components.push(padding(0));
  const withOne = prettyJson(doc).length;
  components.push(padding(1));
  const step = prettyJson(doc).length - withOne;
  // The fewest entries past the target: n ≥ 1 entries make withOne + (n − 1) × step characters.
  const count = bare > target ? 0 : Math.max(1, Math.floor((target - withOne) / step) + 2);
  components.length -= 2;
  for (let i = 0; i < count; i++) components.push(padding(i));
  return Buffer.from(prettyJson(doc));
})();

export default chaosFile({
  id: 'apple-app-site-association',
  path: '/.well-known/apple-app-site-association',
  category: 'app-linking',
  file: 'apple-app-site-association',
  summary: "apple-app-site-association files Apple's verifier rejects: octet-stream, a redirect, invalid JSON, a malformed team ID, mixed legacy keys, over 128 KB, paths the site does not serve",
  lies: {
    'wrong-content-type': 'a valid file labelled application/octet-stream, as servers label extension-less files (Apple requires application/json)',
    redirect: "302 to the control host's file (Apple follows no redirect for this file)",
    'invalid-json': 'a // comment and a trailing comma',
    'bad-team-id': `app IDs whose team ID is "${BAD_TEAM_ID}": 9 lower-case characters, not 10 upper-case alphanumerics`,
    'legacy-mixed': 'one details entry mixes the iOS 12 keys (appID, paths) with appIDs/components that name another app',
    'too-large': 'valid JSON over the 128 KB Apple accepts',
    'path-mismatch': `components claim only ${DEAD_PREFIX}/*, where this host serves nothing (every claimed link is a 404), and none of its pages`,
  },
  aliases: { 'malformed-json': 'invalid-json', 'bad-appid': 'bad-team-id' },
  build: (site) => {
    const valid = appleAppSiteAssociation();
    const badId = `${BAD_TEAM_ID}.${APP_BUNDLE_ID}`;
    return {
      'wrong-content-type': json(valid, 'application/octet-stream'),
      redirect: redirect(302, `${site.control}/.well-known/apple-app-site-association`),
      'invalid-json': reply(
        JSON_TYPE,
        `{\n  // universal links\n  "applinks": {\n    "details": [\n      {\n        "appIDs": ["${APPLE_APP_ID}"],\n        "components": [{ "/": "/" },]\n      }\n    ]\n  },\n}\n`,
      ),
      'bad-team-id': json({
        applinks: { details: [{ appIDs: [badId], components: [{ '/': '/' }] }] },
        webcredentials: { apps: [badId] },
      }),
      'legacy-mixed': json({
        applinks: {
          apps: [],
          details: [{ appID: APPLE_APP_ID, paths: ['/'], appIDs: [`${APPLE_APP_ID}.beta`], components: [{ '/': '/', exclude: true }] }],
        },
      }),
      'too-large': reply(JSON_TYPE, TOO_LARGE),
      'path-mismatch': json({ ...valid, applinks: { details: [{ appIDs: [APPLE_APP_ID], components: [{ '/': `${DEAD_PREFIX}/*` }] }] } }),
    };
  },
});
