// The bots host (SPEC §1.6, §4.1 "Crawler chaos"), category crawler-files:
// robots.txt, sitemap.xml, ai.txt and llms.txt, each mode telling exactly its
// documented lie, on the wire; and the bots catalog as a whole.
import t from 'tap';
import { xmlProblems } from '../../helpers/documents.js';
import { type Checks, lines, mediaType, startBotsFiles } from '../../helpers/bots-files.js';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';

const { control, bots, C, B, follow, status, TWIN, catalog, endpoints, modeTests } = await startBotsFiles(t);

const urlsIn = (text: string): string[] => [...text.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)].map((m) => (m[0] as string).replace(/&amp;/g, '&'));

/** Every endpoint → every mode → what its lie looks like on the wire, in catalog mode order. */
const CHECKS: Checks = {
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
};

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

modeTests(t, 'crawler-files', CHECKS);

t.test('HEAD: the same head, no body', async (t) => {
  const result = await rawExchange(bots, get('/robots.txt?mode=oversized', {}, 'HEAD'), { until: (d) => d.includes('\r\n\r\n') });
  const res = parseHead(result.data);
  t.equal(res.status, 200);
  t.equal(res.header('content-length'), String(500 * 1024 + 'Disallow: /\n'.length));
  t.equal(res.header('x-chaos-mode'), 'oversized');
});
