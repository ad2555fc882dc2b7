// The bots host (SPEC §1.6, §4.1 "Crawler chaos"), category app-linking:
// apple-app-site-association, assetlinks.json, the web app manifest and its
// icon, each mode telling exactly its documented lie, on the wire.
import t from 'tap';
import { pngProblems } from '../helpers/documents.js';
import { type Checks, differingKeys, mediaType, mentionsControl, parses, startBotsFiles } from '../helpers/bots-files.js';

const { control, bots, C, B, rawGet, follow, status, modeTests } = await startBotsFiles(t);

const controlAasa = async () => JSON.parse((await rawGet(control, '/.well-known/apple-app-site-association')).text);
const controlAssetlinks = async () => JSON.parse((await rawGet(control, '/.well-known/assetlinks.json')).text);

/** Every endpoint → every mode → what its lie looks like on the wire, in catalog mode order. */
const CHECKS: Checks = {
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
      // Padded just past 136 KiB (the limit and 8 KiB), by one entry (about 110 bytes) at most.
      t.ok(r.body.length > 136 * 1024 && r.body.length <= 136 * 1024 + 200, 'padded to just past 136 KiB');
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
    'missing-icons': (t, r) => {
      const m = JSON.parse(r.text);
      t.notOk('icons' in m, 'no icons member');
      t.ok(m.name && m.short_name && m.start_url, 'the rest is the valid manifest');
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
};

modeTests(t, 'app-linking', CHECKS);

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
