// The bots host (SPEC §1.6, §4.1 "Crawler chaos"): 18 chaotic files in 4
// categories, each mode telling exactly its documented lie, on the wire.
// Control and bots run with public URLs naming their real addresses, so the
// links a lie points at (dead, looping, cross-host) are followed for real.
import t, { type Test } from 'tap';
import { adsRecords, isCalendarDate, nodeinfo20Problems, pngProblems, securityTxtProblems, xmlProblems } from '../helpers/documents.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { startLinkedHosts } from '../helpers/servers.js';

const { config, control, bots } = await startLinkedHosts(t);
const C = config.urls.control;
const B = config.urls.bots;
const BOTS_DID = `did:web:${encodeURIComponent(new URL(B).host)}`;
const CONTROL_DID = `did:web:${encodeURIComponent(new URL(C).host)}`;
const ACCOUNT = `acct:bots@${new URL(B).hostname}`;
const DAY_MS = 86_400_000;

interface Got {
  readonly res: ParsedResponse;
  readonly body: Buffer;
  readonly text: string;
}

async function rawGet(port: number, target: string): Promise<Got> {
  const result = await rawExchange(port, get(target), { until: completeByLength });
  const res = parseHead(result.data);
  const body = res.rest.subarray(0, Number(res.header('content-length')));
  return { res, body, text: body.toString('utf8') };
}

/** Follows an absolute URL on one of the two running hosts, without following redirects. */
async function follow(url: string): Promise<Got> {
  const u = new URL(url);
  const port = u.origin === new URL(B).origin ? bots : u.origin === new URL(C).origin ? control : undefined;
  if (port === undefined) throw new Error(`${url} is on neither running host`);
  return rawGet(port, u.pathname + u.search);
}

const status = async (url: string): Promise<number> => (await follow(url)).res.status;
const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
const mediaType = (r: Got): string => (r.res.header('content-type') ?? '').split(';')[0] as string;
const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
const urlsIn = (text: string): string[] => [...text.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)].map((m) => (m[0] as string).replace(/&amp;/g, '&'));

type Check = (t: Test, r: Got) => unknown;

/** Extra query each endpoint needs besides `mode`. */
const BASE_QUERY: Readonly<Record<string, string>> = {
  '/icon.png': 'size=192&',
  '/.well-known/webfinger': `resource=${encodeURIComponent(ACCOUNT)}&`,
};

/** The control twin each bots file names, when it is not the same path. */
const TWIN: Readonly<Record<string, string>> = { '/security.txt': '/.well-known/security.txt' };

/** The query the counterpart keeps from BASE_QUERY: what the control twin understands, never `mode`. */
const TWIN_QUERY: Readonly<Record<string, string>> = {
  '/icon.png': '?size=192',
  '/.well-known/webfinger': `?resource=${encodeURIComponent(ACCOUNT)}`,
};

const controlAasa = async () => JSON.parse((await rawGet(control, '/.well-known/apple-app-site-association')).text);
const controlAssetlinks = async () => JSON.parse((await rawGet(control, '/.well-known/assetlinks.json')).text);

/** Every endpoint → every mode → what its lie looks like on the wire, in catalog mode order. */
const CHECKS: Readonly<Record<string, Readonly<Record<string, Check>>>> = {
  '/robots.txt': {
    'allow-disallow-same-path': (t, r) => {
      t.equal(r.res.header('content-type'), 'text/plain; charset=utf-8');
      t.same(lines(r.text), ['User-agent: *', 'Disallow: /private/', 'Allow: /private/'], 'the disallow first, so first-match parsers disagree with RFC 9309');
    },
    'contradicting-groups': (t, r) => {
      const groups = r.text.split('\n\n').map(lines);
      const gpt = groups.filter((g) => g[0] === 'User-agent: GPTBot');
      t.same(gpt, [['User-agent: GPTBot', 'Disallow: /'], ['User-agent: GPTBot', 'Allow: /']], 'two GPTBot groups, opposite rules');
    },
    bom: (t, r) => {
      t.same([...r.body.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'starts with the UTF-8 BOM');
      t.equal(r.body.subarray(3, 3 + 26).toString('latin1'), 'User-agent: *\nDisallow: /\n', 'then the group');
    },
    oversized: (t, r) => {
      const limit = 500 * 1024;
      t.ok(r.body.length > limit, `${r.body.length} bytes, past 500 KiB`);
      t.equal(r.body.indexOf('Disallow'), limit, 'the only Disallow starts at byte 512000');
      t.equal(r.body[limit - 1], 0x0a, 'the cut falls between lines');
      t.equal(r.body.subarray(limit).toString(), 'Disallow: /\n');
      t.same(lines(r.body.subarray(0, limit).toString()), ['User-agent: *', 'Allow: /'], 'within the limit: allow all');
    },
    'sitemap-loop': async (t, r) => {
      const sitemap = /^Sitemap: (.+)$/m.exec(r.text)?.[1] as string;
      t.equal(sitemap, `${B}/sitemap.xml?mode=self-index`);
      const index = await follow(sitemap);
      t.same([...index.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]), [sitemap], 'the sitemap lists only itself');
    },
    'wrong-content-type': (t, r) => {
      t.equal(r.res.header('content-type'), 'text/html; charset=utf-8');
      t.match(r.text, /^User-agent: \*$/m, 'a robots.txt body');
    },
    'html-fallback': (t, r) => {
      t.equal(r.res.status, 200);
      t.equal(mediaType(r), 'text/html');
      t.match(r.text, /^<!doctype html>/);
      t.notMatch(r.text, /User-agent/i);
    },
  },
  '/sitemap.xml': {
    'malformed-xml': (t, r) => {
      const problems = xmlProblems(r.text);
      t.ok(problems.some((p) => p.startsWith('bare &')), 'a bare &');
      t.ok(problems.some((p) => /closes|unclosed/.test(p)), 'an unclosed <url>');
    },
    'future-lastmod': async (t, r) => {
      t.same(xmlProblems(r.text), []);
      const lastmods = [...r.text.matchAll(/<lastmod>([^<]*)<\/lastmod>/g)].map((m) => m[1]);
      t.ok(lastmods.length > 5 && lastmods.every((d) => d === '2099-01-01'));
      for (const [, loc] of r.text.matchAll(/<loc>([^<]*)<\/loc>/g)) t.equal(await status(loc as string), 200, 'only the date lies');
    },
    'dead-urls': async (t, r) => {
      t.same(xmlProblems(r.text), []);
      const locs = [...r.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1] as string);
      t.ok(locs.length >= 3);
      for (const loc of locs) {
        t.ok(loc.startsWith(`${B}/`));
        t.equal(await status(loc), 404, `${loc} is dead`);
      }
    },
    'self-index': (t, r) => {
      t.same(xmlProblems(r.text), []);
      t.match(r.text, /<sitemapindex xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
      t.same([...r.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]), [`${B}/sitemap.xml?mode=self-index`]);
    },
    'wrong-namespace': (t, r) => {
      t.same(xmlProblems(r.text), []);
      t.match(r.text, /<urlset xmlns="https:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
    },
    'cross-host-urls': async (t, r) => {
      t.same(xmlProblems(r.text), []);
      const locs = [...r.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1] as string);
      t.ok(locs.length > 5);
      for (const loc of locs) {
        t.ok(loc.startsWith(`${C}/`), `${loc} is on the control host`);
        t.equal(await status(loc), 200, 'and resolves there');
      }
    },
  },
  '/.well-known/ai.txt': {
    contradictory: (t, r) => {
      t.match(r.text, /Every AI crawler is welcome/);
      const groups = r.text.split('\n\n').map(lines);
      for (const agent of ['GPTBot', 'ClaudeBot']) {
        t.same(groups.filter((g) => g[0] === `User-Agent: ${agent}`).map((g) => g[1]), ['Allow: /', 'Disallow: /'], `${agent}: allowed and disallowed`);
      }
    },
    'same-path': (t, r) => t.same(lines(r.text), ['User-Agent: *', 'Disallow: /docs/', 'Allow: /docs/']),
    'dead-links': async (t, r) => {
      const links = urlsIn(r.text).filter((u) => u !== B);
      t.equal(links.length, 2);
      for (const link of links) t.equal(await status(link), 404, `${link} is dead`);
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.match(r.text, /^User-Agent: \*$/m);
    },
  },
  '/llms.txt': {
    'dead-links': async (t, r) => {
      t.equal(r.res.header('content-type'), 'text/markdown; charset=utf-8');
      t.equal(r.text.split('\n').filter((l) => l.startsWith('# ')).length, 1, 'one H1');
      const links = [...r.text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1] as string);
      t.ok(links.length >= 2);
      for (const link of links) t.equal(await status(link), 404, `${link} is dead`);
    },
    'multiple-h1': (t, r) => t.equal(r.text.split('\n').filter((l) => l.startsWith('# ')).length, 2, 'two H1s'),
    'missing-h1': (t, r) => {
      t.equal(r.text.split('\n').filter((l) => l.startsWith('# ')).length, 0, 'no H1');
      t.match(r.text, /^## /);
    },
    contradictory: async (t, r) => {
      t.match(r.text, /^> No content of this site may be used by language models/m);
      t.match(r.text, /free to use for training/);
      for (const [, link] of r.text.matchAll(/\]\(([^)]+)\)/g)) t.equal(await status(link as string), 200, 'its links are live');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.match(r.text, /^# /);
    },
  },
  '/.well-known/apple-app-site-association': {
    'wrong-content-type': async (t, r) => {
      t.equal(r.res.header('content-type'), 'application/octet-stream');
      t.same(JSON.parse(r.text), await controlAasa(), 'the valid document');
    },
    redirect: async (t, r) => {
      t.equal(r.res.status, 302);
      t.equal(r.res.header('location'), `${C}/.well-known/apple-app-site-association`);
      t.equal(await status(r.res.header('location') as string), 200, 'to a valid file on another host');
    },
    'invalid-json': (t, r) => {
      t.equal(r.res.header('content-type'), 'application/json');
      t.notOk(parses(r.text));
      t.match(r.text, /\/\/ universal links/);
    },
    'bad-team-id': (t, r) => {
      const doc = JSON.parse(r.text);
      const id = doc.applinks.details[0].appIDs[0] as string;
      t.equal(id.split('.')[0], 'chaosteam');
      t.notMatch(id, /^[A-Z0-9]{10}\./, 'not a team ID');
      t.same(doc.webcredentials.apps, [id]);
    },
    'legacy-mixed': (t, r) => {
      const detail = JSON.parse(r.text).applinks.details[0];
      t.ok('appID' in detail && 'paths' in detail && 'appIDs' in detail && 'components' in detail, 'both generations of keys');
      t.not(detail.appID, detail.appIDs[0], 'naming different apps');
    },
    'too-large': (t, r) => {
      t.ok(r.body.length > 128 * 1024, `${r.body.length} bytes`);
      t.ok(parses(r.text), 'valid JSON');
      t.equal(r.res.header('content-type'), 'application/json');
    },
    'path-mismatch': async (t, r) => {
      const components = JSON.parse(r.text).applinks.details[0].components as { '/': string }[];
      t.same(components.map((c) => c['/']), ['/gone/*'], 'only a path this host does not serve');
      t.equal(await status(`${B}/gone/anything`), 404);
    },
  },
  '/.well-known/assetlinks.json': {
    'short-fingerprint': (t, r) => {
      const fingerprint = JSON.parse(r.text)[0].target.sha256_cert_fingerprints[0] as string;
      t.equal(fingerprint.split(':').length, 31, '31 bytes');
      t.match(fingerprint, /^([0-9A-F]{2}:){30}[0-9A-F]{2}$/);
    },
    'wrong-package': async (t, r) => {
      const name = JSON.parse(r.text)[0].target.package_name;
      t.equal(name, 'com.example.chaos.debug');
      t.not(name, (await controlAssetlinks())[0].target.package_name);
    },
    'wrong-relation': (t, r) => t.same(JSON.parse(r.text)[0].relation, ['delegate_permission/common.handle_all_url']),
    'not-array': (t, r) => {
      const doc = JSON.parse(r.text);
      t.notOk(Array.isArray(doc));
      t.equal(doc.target.namespace, 'android_app');
    },
    'invalid-json': (t, r) => {
      t.notOk(parses(r.text));
      t.match(r.text, /},\n]\n$/);
    },
    redirect: (t, r) => {
      t.equal(r.res.status, 301);
      t.equal(r.res.header('location'), `${C}/.well-known/assetlinks.json`);
    },
    'wrong-content-type': async (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.same(JSON.parse(r.text), await controlAssetlinks());
    },
  },
  '/manifest.webmanifest': {
    'dead-icons': async (t, r) => {
      const icons = JSON.parse(r.text).icons as { src: string }[];
      t.equal(icons.length, 2);
      for (const icon of icons) t.equal(await status(icon.src), 404, `${icon.src} is dead`);
    },
    'icon-size-lies': async (t, r) => {
      for (const icon of JSON.parse(r.text).icons as { src: string; sizes: string }[]) {
        const got = await follow(icon.src);
        const png = pngProblems(got.body);
        t.same(png.problems, [], 'a valid PNG');
        t.equal(`${png.width}x${png.height}`, '16x16');
        t.not(icon.sizes, '16x16', `declared ${icon.sizes}`);
      }
    },
    'scope-excludes-start-url': async (t, r) => {
      const m = JSON.parse(r.text);
      t.notOk((m.start_url as string).startsWith(m.scope), `${m.start_url} is outside ${m.scope}`);
      for (const icon of m.icons as { src: string; sizes: string }[]) {
        const png = pngProblems((await follow(icon.src)).body);
        t.equal(`${png.width}x${png.height}`, icon.sizes, 'the icons are fine: one lie per mode');
      }
    },
    'cross-origin-start-url': (t, r) => {
      const m = JSON.parse(r.text);
      t.equal(new URL(m.start_url).origin, new URL(C).origin);
      t.not(new URL(m.start_url).origin, new URL(B).origin, 'not the manifest origin');
    },
    'missing-name': (t, r) => {
      const m = JSON.parse(r.text);
      t.notOk('name' in m || 'short_name' in m);
      t.ok(m.icons && m.start_url);
    },
    'invalid-json': (t, r) => {
      t.notOk(parses(r.text));
      t.equal(r.res.header('content-type'), 'application/manifest+json');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.ok(JSON.parse(r.text).name);
    },
    'contradictory-display': (t, r) => {
      const m = JSON.parse(r.text);
      t.equal(m.display, 'fullscreen');
      t.same(m.display_override, ['browser'], 'the override asks for a tab');
    },
    'invalid-colors': (t, r) => {
      const m = JSON.parse(r.text);
      t.equal(m.theme_color, '#12345G', 'G is no hex digit');
      t.equal(m.background_color, 'bluish');
    },
    'name-mismatch': (t, r) => {
      const m = JSON.parse(r.text);
      t.equal(m.short_name, 'Other App');
      t.notMatch(m.name, /Other App/, 'name names another app');
    },
  },
  '/icon.png': {
    'wrong-size': (t, r) => {
      const png = pngProblems(r.body);
      t.same(png.problems, []);
      t.equal(`${png.width}x${png.height}`, '16x16', 'asked for 192');
    },
    truncated: async (t, r) => {
      const whole = (await rawGet(control, '/icon.png?size=192')).body;
      t.equal(r.body.length, Math.floor(whole.length / 2));
      t.ok(whole.subarray(0, r.body.length).equals(r.body), 'the first half of the real icon');
      t.ok(pngProblems(r.body).problems.length > 0, 'not a complete PNG');
    },
    'not-png': (t, r) => {
      t.equal(r.res.header('content-type'), 'image/png');
      t.equal(r.body.toString('latin1', 0, 15), '<!doctype html>');
    },
    'wrong-content-type': (t, r) => {
      t.equal(r.res.header('content-type'), 'image/jpeg');
      const png = pngProblems(r.body);
      t.same(png.problems, [], 'a valid PNG');
      t.equal(png.width, 192);
    },
  },
  '/.well-known/atproto-did': {
    'wrong-method': (t, r) => {
      t.match(r.text, /^did:key:z[1-9A-HJ-NP-Za-km-z]+$/);
    },
    'several-lines': (t, r) => {
      const dids = r.text.split('\n').filter((l) => l !== '');
      t.equal(dids.length, 2);
      t.equal(dids[0], BOTS_DID);
      t.match(dids[1], /^did:plc:[a-z2-7]{24}$/);
    },
    'other-host': (t, r) => {
      t.equal(r.text, CONTROL_DID);
      t.not(r.text, BOTS_DID);
    },
    'whitespace-junk': (t, r) => {
      t.same([...r.body.subarray(0, 5)], [0xef, 0xbb, 0xbf, 0x20, 0x20], 'BOM and spaces first');
      t.equal(r.body.subarray(5).toString(), `${BOTS_DID}  \r\n\r\n\t`);
    },
    'invalid-syntax': (t, r) => {
      t.match(r.text, /^DID:WEB:/);
      t.equal(`did:web:${r.text.slice(8)}`, BOTS_DID, 'otherwise this host');
    },
    empty: (t, r) => {
      t.equal(r.res.status, 200);
      t.equal(r.body.length, 0, 'no DID at all');
    },
  },
  '/.well-known/did.json': {
    'id-mismatch': (t, r) => t.equal(JSON.parse(r.text).id, CONTROL_DID),
    'missing-context': (t, r) => {
      const doc = JSON.parse(r.text);
      t.notOk('@context' in doc);
      t.equal(doc.id, BOTS_DID);
    },
    'aka-other-handle': (t, r) => {
      const doc = JSON.parse(r.text);
      t.equal(doc.id, BOTS_DID);
      t.same(doc.alsoKnownAs, ['at://someone-else.example.com']);
    },
    'invalid-json': (t, r) => {
      t.notOk(parses(r.text));
      t.match(r.text, /\n {2}id: /, 'an unquoted key');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.equal(JSON.parse(r.text).id, BOTS_DID);
    },
  },
  '/.well-known/webfinger': {
    'subject-mismatch': (t, r) => {
      t.equal(r.res.header('content-type'), 'application/jrd+json');
      const subject = JSON.parse(r.text).subject;
      t.not(subject, ACCOUNT);
      t.match(subject, /^acct:someone-else@/);
    },
    'answers-any-resource': async (t, r) => {
      t.equal(JSON.parse(r.text).subject, ACCOUNT);
      const other = await rawGet(bots, `/.well-known/webfinger?mode=answers-any-resource&resource=${encodeURIComponent('acct:nobody@example.org')}`);
      t.equal(other.res.status, 200, 'a resource on another host still answers 200');
      t.equal(JSON.parse(other.text).subject, 'acct:nobody@example.org');
    },
    'cross-host-links': (t, r) => {
      const jrd = JSON.parse(r.text);
      t.equal(jrd.subject, ACCOUNT);
      t.ok(jrd.links.length > 0 && jrd.links.every((l: { href: string }) => l.href.startsWith(`${C}/`)));
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.equal(JSON.parse(r.text).subject, ACCOUNT);
    },
    'invalid-json': (t, r) => {
      t.equal(r.res.header('content-type'), 'application/jrd+json');
      t.notOk(parses(r.text));
      t.match(r.text, /^\{\n {2}"subject"/);
    },
  },
  '/.well-known/nodeinfo': {
    'wrong-rel': (t, r) => t.same(JSON.parse(r.text).links, [{ rel: 'https://nodeinfo.diaspora.software/ns/schema/2.0', href: `${B}/nodeinfo/2.0` }]),
    'other-host': async (t, r) => {
      const [link] = JSON.parse(r.text).links;
      t.equal(link.rel, 'http://nodeinfo.diaspora.software/ns/schema/2.0');
      t.equal(link.href, `${C}/nodeinfo/2.0`);
      t.equal(await status(link.href), 200);
    },
    'dead-href': async (t, r) => {
      const [link] = JSON.parse(r.text).links;
      t.equal(await status(link.href), 404);
    },
    'rel-href-mismatch': (t, r) => t.same(JSON.parse(r.text).links, [{ rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${B}/nodeinfo/2.0` }]),
    'links-not-array': (t, r) => {
      const doc = JSON.parse(r.text);
      t.notOk(Array.isArray(doc.links));
      t.equal(doc.links.href, `${B}/nodeinfo/2.0`);
    },
  },
  '/nodeinfo/2.0': {
    'schema-invalid': (t, r) => {
      const problems = nodeinfo20Problems(JSON.parse(r.text));
      t.ok(problems.includes('software') && problems.includes('openRegistrations') && problems.includes('usage count -1'), problems.join('; '));
    },
    'version-contradicts-path': (t, r) => {
      const doc = JSON.parse(r.text);
      t.equal(doc.version, '2.1');
      t.ok(nodeinfo20Problems(doc).includes('version must be 2.0'));
    },
    'missing-required': (t, r) => {
      const problems = nodeinfo20Problems(JSON.parse(r.text));
      for (const field of ['protocols', 'services', 'usage', 'metadata']) t.ok(problems.includes(`missing ${field}`), `no ${field}`);
    },
    'invalid-json': (t, r) => {
      t.notOk(parses(r.text));
      t.match(r.text, /"localPosts": ?NaN/);
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.same(nodeinfo20Problems(JSON.parse(r.text)), [], 'the document itself is valid');
    },
  },
  '/.well-known/security.txt': {
    expired: (t, r) => t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['expired']),
    'dead-contact': async (t, r) => {
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), []);
      const contact = /^Contact: (.+)$/m.exec(r.text)?.[1] as string;
      t.equal(await status(contact), 404, 'the Contact is dead');
    },
    'canonical-mismatch': (t, r) => {
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['Canonical does not name the served URL']);
      t.match(r.text, new RegExp(`^Canonical: ${C}/.well-known/security.txt$`, 'm'));
    },
    'unsigned-claim': (t, r) => {
      t.match(r.text, /^-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n/);
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['signature claimed but missing']);
    },
    'missing-expires': (t, r) => t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['no Expires']),
    'duplicate-expires': (t, r) => {
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['more than one Expires']);
      const values = [...r.text.matchAll(/^Expires: (.+)$/gm)].map((m) => m[1]);
      t.not(values[0], values[1], 'with different dates');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), []);
    },
  },
  '/security.txt': {
    'contradicts-well-known': async (t, r) => {
      const wellKnown = (await rawGet(bots, '/.well-known/security.txt?mode=dead-contact')).text;
      const field = (text: string, name: string) => new RegExp(`^${name}: (.+)$`, 'm').exec(text)?.[1];
      t.not(field(r.text, 'Contact'), field(wellKnown, 'Contact'), 'another Contact');
      t.not(field(r.text, 'Expires'), field(wellKnown, 'Expires'), 'another Expires');
      t.equal(await status(field(r.text, 'Contact') as string), 200, 'each one resolving');
    },
    'redirect-other-host': (t, r) => {
      t.equal(r.res.status, 301);
      t.equal(r.res.header('location'), `${C}/.well-known/security.txt`);
    },
    'redirect-loop': async (t, r) => {
      t.equal(r.res.status, 302);
      const location = r.res.header('location') as string;
      t.equal(location, `${B}/security.txt?mode=redirect-loop`);
      const again = await follow(location);
      t.equal(again.res.header('location'), location, 'and again');
    },
  },
  '/ads.txt': {
    'malformed-lines': (t, r) => {
      const { valid, malformed } = adsRecords(r.text);
      t.same(valid, [], 'no valid record');
      t.equal(malformed.length, 5);
    },
    contradictory: (t, r) => {
      const { valid, malformed } = adsRecords(r.text);
      t.same(malformed, []);
      t.same(valid.map((v) => v.relationship), ['DIRECT', 'RESELLER']);
      t.equal(valid[0]?.account, valid[1]?.account, 'one seller');
    },
    bom: (t, r) => {
      t.same([...r.body.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      t.equal(r.body.toString('latin1', 3, 14), 'example.com', 'glued to the first domain');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.equal(adsRecords(r.text).valid.length, 1);
    },
  },
  '/humans.txt': {
    contradictory: (t, r) => {
      t.match(r.text, /\/\* TEAM \*\/\nMaintainer: Ada Placeholder\n/);
      t.match(r.text, /^Not contributing: Ada Placeholder /m);
    },
    recursive: (t, r) => {
      const fields = r.text.split('\n').filter((l) => /^[A-Z][\w ]*: /.test(l));
      t.ok(fields.length >= 5);
      for (const field of fields) t.match(field, /\/humans\.txt/, `${field} refers to /humans.txt`);
    },
    'time-paradox': (t, r) => {
      const dated = [...r.text.matchAll(/(\d{4})\/(\d{2})\/(\d{2})( (\d{2}):(\d{2}))?/g)];
      t.ok(dated.length >= 4);
      for (const [text, y, m, d, , hour] of dated) {
        const possible = isCalendarDate(Number(y), Number(m), Number(d)) && (hour === undefined || Number(hour) < 24);
        t.notOk(possible, `${text} is impossible`);
      }
    },
  },
  '/.well-known/gpc.json': {
    'string-boolean': (t, r) => t.equal(JSON.parse(r.text).gpc, 'true'),
    'future-last-update': (t, r) => {
      const doc = JSON.parse(r.text);
      t.equal(doc.gpc, true);
      t.ok(Date.parse(doc.lastUpdate) > Date.now() + 365 * DAY_MS);
    },
    'impossible-date': (t, r) => {
      const [y, m, d] = (JSON.parse(r.text).lastUpdate as string).split('-').map(Number);
      t.notOk(isCalendarDate(y as number, m as number, d as number));
    },
    'invalid-json': (t, r) => t.notOk(parses(r.text)),
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.equal(JSON.parse(r.text).gpc, true);
    },
  },
};

interface CatalogEndpoint {
  id: string;
  path: string;
  counterpart: string;
  params: { name: string; default?: unknown; accepted: string | string[] }[];
}
interface Catalog {
  banner: string;
  endpoint_count: number;
  category_count: number;
  categories: { name: string; count: number; endpoints: CatalogEndpoint[] }[];
}
const catalog = JSON.parse((await rawExchange(bots, get('/', { Accept: 'application/json' }), { until: completeByLength }).then((r) => parseHead(r.data).rest)).toString()) as Catalog;
const endpoints = catalog.categories.flatMap((c) => c.endpoints.map((e) => ({ ...e, category: c.name })));
const modesOf = (e: CatalogEndpoint): string[] => e.params.find((p) => p.name === 'mode')?.accepted as string[];

t.test('catalog: 18 endpoints in 4 categories on the bots host', async (t) => {
  t.equal(catalog.endpoint_count, 18);
  t.equal(catalog.category_count, 4);
  t.match(catalog.banner, /^18 endpoints in 4 categories on the bots host\./);
  t.same(
    catalog.categories.map((c) => [c.name, c.count]),
    [['crawler-files', 4], ['app-linking', 4], ['federated-identity', 5], ['site-trust', 5]],
  );
  for (const e of endpoints) t.equal(e.counterpart, C + (TWIN[e.path] ?? e.path), `${e.id}: the control twin`);
});

t.test('every mode of every file has a check, in catalog order, the first being the default', async (t) => {
  t.same(endpoints.map((e) => e.path).sort(), Object.keys(CHECKS).sort());
  for (const e of endpoints) {
    const modes = modesOf(e);
    t.same(modes, Object.keys(CHECKS[e.path] ?? {}), `${e.path} modes`);
    t.equal(e.params.find((p) => p.name === 'mode')?.default, modes[0], `${e.path} default`);
    t.ok(modes.length >= 3, `${e.path} has several modes`);
  }
});

for (const e of endpoints) {
  t.test(`${e.path} (${e.category})`, async (t) => {
    const base = BASE_QUERY[e.path] ?? '';
    for (const mode of modesOf(e)) {
      await t.test(mode, async (t) => {
        const r = await rawGet(bots, `${e.path}?${base}mode=${mode}`);
        t.ok([200, 301, 302].includes(r.res.status), `status ${r.res.status}`);
        t.equal(r.res.header('x-chaos-category'), e.category);
        t.equal(r.res.header('x-chaos-endpoint'), e.path);
        t.equal(r.res.header('x-chaos-mode'), mode);
        t.ok(r.res.header('x-chaos-file'), 'names the file');
        t.ok((r.res.header('x-chaos-lie') ?? '').length > 10, 'states the lie');
        t.equal(r.res.header('x-chaos-counterpart'), C + (TWIN[e.path] ?? e.path) + (TWIN_QUERY[e.path] ?? ''), 'the twin, with the query it understands');
        t.equal(Number(r.res.header('content-length')), r.body.length, 'an honest Content-Length');
        await (CHECKS[e.path]?.[mode] as Check)(t, r);
      });
    }

    await t.test('no mode: the first mode, byte for byte', async (t) => {
      const [first] = modesOf(e);
      const implicit = await rawGet(bots, `${e.path}${base ? `?${base.slice(0, -1)}` : ''}`);
      const explicit = await rawGet(bots, `${e.path}?${base}mode=${first}`);
      t.equal(implicit.res.header('x-chaos-mode'), first);
      t.ok(implicit.body.equals(explicit.body), 'same bytes');
      t.equal(implicit.res.status, explicit.res.status);
    });

    await t.test('unknown mode: 400 with the accepted modes, no X-Chaos-*', async (t) => {
      const r = await rawGet(bots, `${e.path}?${base}mode=nope`);
      t.equal(r.res.status, 400);
      const error = JSON.parse(r.text);
      t.equal(error.param, 'mode');
      t.equal(error.requested, 'nope');
      t.same(error.accepted, modesOf(e));
      t.notOk(r.res.headerLines.some(([name]) => /^x-chaos-/i.test(name)), 'a real error');
    });
  });
}

/** Top-level keys whose values differ between two documents (missing on either side included), sorted. */
function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}
const mentionsControl = (value: unknown): boolean => /control|twin|well-formed/i.test(JSON.stringify(value));

t.test('nodeinfo/2.0: a bots-host document in every mode; only the documented lie differs', async (t) => {
  const twin = JSON.parse((await rawGet(control, '/nodeinfo/2.0')).text) as Record<string, unknown>;
  const valid = JSON.parse((await rawGet(bots, '/nodeinfo/2.0?mode=wrong-content-type')).text) as Record<string, unknown>;
  t.same(nodeinfo20Problems(valid), [], 'the correct bots document is schema-valid');
  t.same(differingKeys(valid, twin), ['metadata'], 'it differs from the control document only in its metadata');
  const metadata = valid.metadata as Record<string, unknown>;
  t.equal(metadata.nodeName, 'Chaos Endpoint Service (bots host)', 'names the bots host');
  t.match(metadata.nodeDescription, /misbehave on purpose/);
  t.notOk(mentionsControl(metadata), 'says nothing of the control host or of twins');
  const expected: Readonly<Record<string, readonly string[]>> = {
    'schema-invalid': ['openRegistrations', 'software', 'usage'],
    'version-contradicts-path': ['software', 'version'],
    'missing-required': ['metadata', 'protocols', 'services', 'usage'],
    'invalid-json': [],
    'wrong-content-type': [],
  };
  for (const [mode, keys] of Object.entries(expected)) {
    const text = (await rawGet(bots, `/nodeinfo/2.0?mode=${mode}`)).text;
    // The one token JSON lacks, put back as the number it stands for.
    const doc = JSON.parse(mode === 'invalid-json' ? text.replace(/: ?NaN/, ': 0') : text) as Record<string, unknown>;
    t.same(differingKeys(doc, valid), keys, `${mode}: only ${keys.join(', ') || 'nothing'} differs`);
    if (doc.metadata !== undefined) t.same(doc.metadata, metadata, `${mode}: the bots host's metadata`);
  }
});

t.test('manifest: a bots-host manifest in every mode; only the documented lie differs', async (t) => {
  const twin = JSON.parse((await rawGet(control, '/manifest.webmanifest')).text) as Record<string, unknown>;
  const valid = JSON.parse((await rawGet(bots, '/manifest.webmanifest?mode=wrong-content-type')).text) as Record<string, unknown>;
  t.same(differingKeys(valid, twin), ['description', 'id', 'name', 'scope', 'short_name', 'start_url'], 'the host-specific fields only');
  t.same([valid.id, valid.start_url, valid.scope], [`${B}/`, `${B}/`, `${B}/`]);
  t.equal(valid.name, 'Chaos Endpoint Service: bots host');
  t.equal(valid.short_name, 'Chaos bots');
  t.match(valid.description, /misbehave on purpose/);
  t.notOk(mentionsControl(valid.description), 'the description is of the bots host, not of the control twins');
  const expected: Readonly<Record<string, readonly string[]>> = {
    'dead-icons': ['icons'],
    'icon-size-lies': ['icons'],
    'scope-excludes-start-url': ['scope'],
    'cross-origin-start-url': ['start_url'],
    'missing-name': ['name', 'short_name'],
    'invalid-json': [],
    'wrong-content-type': [],
  };
  for (const [mode, keys] of Object.entries(expected)) {
    const text = (await rawGet(bots, `/manifest.webmanifest?mode=${mode}`)).text;
    if (mode === 'invalid-json') t.match(text, /^\{\s*'id': '/, 'single-quoted');
    const doc = JSON.parse(mode === 'invalid-json' ? text.replace(/'/g, '"') : text) as Record<string, unknown>;
    t.same(differingKeys(doc, valid), keys, `${mode}: only ${keys.join(', ') || 'the quotes'} differs`);
  }
});

t.test('humans.txt: status 200, text/plain and X-Chaos-Humans-Mode in every mode (SPEC §4.1)', async (t) => {
  for (const mode of ['contradictory', 'recursive', 'time-paradox']) {
    const r = await rawGet(bots, `/humans.txt?mode=${mode}`);
    t.equal(r.res.status, 200);
    t.equal(mediaType(r), 'text/plain');
    t.equal(r.res.header('x-chaos-humans-mode'), mode);
  }
  t.equal((await rawGet(bots, '/humans.txt')).res.header('x-chaos-humans-mode'), 'contradictory', 'contradictory by default');
});

t.test('webfinger: unknown resources 404, a missing resource is a 400', async (t) => {
  const unknown = await rawGet(bots, `/.well-known/webfinger?resource=${encodeURIComponent('acct:nobody@example.org')}`);
  t.equal(unknown.res.status, 404);
  t.equal(unknown.res.header('x-chaos-mode'), 'subject-mismatch');
  const missing = await rawGet(bots, '/.well-known/webfinger');
  t.equal(missing.res.status, 400);
  t.equal(JSON.parse(missing.text).param, 'resource');
  t.notOk(missing.res.headerLines.some(([name]) => /^x-chaos-/i.test(name)));
});

t.test('webfinger: the counterpart keeps resource and rel, drops mode, and answers when followed', async (t) => {
  const controlAccount = `acct:control@${new URL(C).hostname}`;
  const rel = 'http://nodeinfo.diaspora.software/ns/schema/2.0';
  const query = `resource=${encodeURIComponent(controlAccount)}&mode=answers-any-resource&rel=${encodeURIComponent(rel)}&foo=1`;
  const r = await rawGet(bots, `/.well-known/webfinger?${query}`);
  t.equal(r.res.status, 200);
  const twin = r.res.header('x-chaos-counterpart') as string;
  t.equal(twin, `${C}/.well-known/webfinger?resource=${encodeURIComponent(controlAccount)}&rel=${encodeURIComponent(rel)}`, 'resource and rel as sent, in order; mode and unknown parameters dropped');
  const followed = await follow(twin);
  t.equal(followed.res.status, 200, 'the control twin answers the same question');
  t.equal(mediaType(followed), 'application/jrd+json');
  const jrd = JSON.parse(followed.text) as { subject: string; links: { rel: string }[] };
  t.equal(jrd.subject, controlAccount);
  t.same(jrd.links.map((l) => l.rel), [rel], 'rel reached the twin');

  // The bots account is unknown on control: an honest 404 there, not a 400 for a missing resource.
  const own = await rawGet(bots, `/.well-known/webfinger?resource=${encodeURIComponent(ACCOUNT)}&mode=cross-host-links`);
  const ownTwin = await follow(own.res.header('x-chaos-counterpart') as string);
  t.equal(ownTwin.res.status, 404);
  t.same(JSON.parse(ownTwin.text), { error: 'unknown_resource', resource: ACCOUNT });
  const unknown = await rawGet(bots, `/.well-known/webfinger?resource=${encodeURIComponent('acct:nobody@example.org')}`);
  t.equal(unknown.res.header('x-chaos-counterpart'), `${C}/.well-known/webfinger?resource=${encodeURIComponent('acct:nobody@example.org')}`, 'on the honest 404 too');
});

t.test('icon: the counterpart keeps size, so following it gives the size asked', async (t) => {
  const r = await rawGet(bots, '/icon.png?mode=truncated&size=192');
  t.equal(r.res.header('x-chaos-counterpart'), `${C}/icon.png?size=192`);
  const png = pngProblems((await follow(r.res.header('x-chaos-counterpart') as string)).body);
  t.same(png.problems, []);
  t.equal(png.width, 192);
  t.equal((await rawGet(bots, '/icon.png?mode=truncated')).res.header('x-chaos-counterpart'), `${C}/icon.png`, 'nothing to keep: no "?"');
  t.equal((await rawGet(bots, '/robots.txt?mode=bom')).res.header('x-chaos-counterpart'), `${C}/robots.txt`, 'files whose twin takes no parameter drop the query');
});

t.test('icon: both sizes are served, a size that does not exist is a 400', async (t) => {
  const big = await rawGet(bots, '/icon.png?size=512&mode=wrong-content-type');
  t.equal(pngProblems(big.body).width, 512);
  const bad = await rawGet(bots, '/icon.png?size=64');
  t.equal(bad.res.status, 400);
  t.equal(JSON.parse(bad.text).param, 'size');
});

t.test('HEAD: the same head, no body', async (t) => {
  const result = await rawExchange(bots, get('/robots.txt?mode=oversized', {}, 'HEAD'), { until: (d) => d.includes('\r\n\r\n') });
  const res = parseHead(result.data);
  t.equal(res.status, 200);
  t.equal(res.header('content-length'), String(500 * 1024 + 'Disallow: /\n'.length));
  t.equal(res.header('x-chaos-mode'), 'oversized');
});
